import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { windowBounds, type Window } from './windows.js';
import type { Limits } from './limits.js';

interface Counter {
  start: number;
  end: number;
  actions: number;
  spend: number;
}

/** One admitted action, so it can be given back if the provider refuses it. */
export interface Admission {
  readonly cost: number;
  readonly starts: Readonly<Record<Window, number>>;
}

/** What the ledger is loaded from: counts and spend since each window's start. */
export type WindowTotals = Record<Window, { actions: number; spend: number }>;

const WINDOWS: readonly Window[] = ['minute', 'hour', 'day', 'month'];

/**
 * An agent's running totals in fixed UTC windows (minute, hour, day, month), held by its actor.
 * Checking and counting happen in one synchronous step inside the agent's mailbox, so concurrent
 * requests cannot overshoot. Loaded from usage rows when the actor activates, so limits hold across restarts.
 */
export class UsageLedger {
  readonly #counters: Record<Window, Counter>;

  constructor(
    public limits: Limits,
    totals: WindowTotals,
    now = Date.now(),
  ) {
    this.#counters = Object.fromEntries(
      WINDOWS.map((w) => [w, { ...windowBounds(w, now), actions: totals[w].actions, spend: totals[w].spend }]),
    ) as Record<Window, Counter>;
  }

  /** Window starts to load totals for. */
  static windowStarts(now = Date.now()): Record<Window, number> {
    return Object.fromEntries(WINDOWS.map((w) => [w, windowBounds(w, now).start])) as Record<Window, number>;
  }

  /** Checks every limit for one more action costing `cost` and counts it; throws RATE_LIMITED naming the limit. */
  admit(cost: number, now = Date.now()): Admission {
    this.#roll(now);
    const c = this.#counters;
    const checks: [keyof Limits, boolean, Window][] = [
      ['actionsPerMinute', this.limits.actionsPerMinute !== null && c.minute.actions + 1 > this.limits.actionsPerMinute, 'minute'],
      ['actionsPerHour', this.limits.actionsPerHour !== null && c.hour.actions + 1 > this.limits.actionsPerHour, 'hour'],
      ['actionsPerDay', this.limits.actionsPerDay !== null && c.day.actions + 1 > this.limits.actionsPerDay, 'day'],
      ['spendPerDay', this.limits.spendPerDay !== null && c.day.spend + cost > this.limits.spendPerDay + 1e-9, 'day'],
      ['spendPerMonth', this.limits.spendPerMonth !== null && c.month.spend + cost > this.limits.spendPerMonth + 1e-9, 'month'],
    ];
    const tripped = checks.find(([, over]) => over);
    if (tripped) throw limitError(tripped[0], this.limits[tripped[0]]!, c[tripped[2]].end, now);
    for (const w of WINDOWS) {
      c[w].actions += 1;
      c[w].spend += cost;
    }
    return { cost, starts: Object.fromEntries(WINDOWS.map((w) => [w, c[w].start])) as Record<Window, number> };
  }

  /** Gives an admitted action back (the provider refused it), in the windows it was counted in. */
  release(admission: Admission): void {
    for (const w of WINDOWS) {
      const counter = this.#counters[w];
      if (counter.start !== admission.starts[w]) continue;
      counter.actions = Math.max(0, counter.actions - 1);
      counter.spend = Math.max(0, counter.spend - admission.cost);
    }
  }

  /** Totals in the current windows. */
  totals(now = Date.now()): WindowTotals {
    this.#roll(now);
    return Object.fromEntries(WINDOWS.map((w) => [w, { actions: this.#counters[w].actions, spend: this.#counters[w].spend }])) as WindowTotals;
  }

  #roll(now: number): void {
    for (const w of WINDOWS) {
      if (now >= this.#counters[w].end) this.#counters[w] = { ...windowBounds(w, now), actions: 0, spend: 0 };
    }
  }
}

/** The RATE_LIMITED error for a tripped limit, saying which and when it resets. */
export function limitError(limit: string, value: number, resetsAtMs: number, now = Date.now()): SwitchboardError {
  const retryAfter = Math.max(1, Math.ceil((resetsAtMs - now) / 1000));
  const resetsAt = new Date(resetsAtMs).toISOString();
  return new SwitchboardError(ErrorCodes.RATE_LIMITED, `The agent reached its ${limit} limit of ${value}; it resets at ${resetsAt}.`, {
    retryable: true,
    retryAfter,
    details: [{ limit, value, resetsAt }],
  });
}
