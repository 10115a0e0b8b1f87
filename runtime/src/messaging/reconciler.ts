import { ErrorCodes, hasErrorCode } from '@switchboard/sdk';
import type { AgentClient } from '../agents/agent-client.js';
import type { Logger } from '../logger.js';
import { PeriodicSweep } from '../periodic-sweep.js';
import type { Store } from '../store/store.js';

/** What the schedule of asks reads of a message or a call. */
interface Unsettled {
  readonly agentId: string;
  readonly createdAt: string;
  readonly nextAskAt?: string | null;
}

export interface ReconcilerOptions {
  store: Store;
  /** Where each ask runs: the agent's actor, wherever it is (`reconcile`). */
  agents: AgentClient;
  logger: Logger;
  /** The first ask, this long after the send (RECONCILE_AFTER_MS). */
  afterMs: number;
  /** The last ask, and `unknown` without a final answer, this long after the send (RECONCILE_BOUND_MS). */
  boundMs: number;
  /** How often to look for messages due (RECONCILE_SWEEP_MS). */
  everyMs: number;
}

/** Asks at once, at most; a provider is not asked about a whole backlog in one burst. */
const CONCURRENCY = 8;
/** The reason a row of an agent that no longer exists ends `unknown`. */
const AGENT_GONE = 'its agent was deprovisioned before a final status came';
/** Messages looked at per sweep, oldest first; the rest wait for the next sweep. */
const BATCH = 500;

/**
 * Gives every outbound message and every call a final status within the bound, when its provider's
 * callbacks stop coming: sweeps for sent messages and calls still without one, and has each agent's
 * actor ask the provider (`reconcile`, `reconcileCall`) after `afterMs`, then each time the row's age
 * has doubled, and a last time at `boundMs`, which records `unknown` with the reason when no final
 * answer came. The time of the next ask is stored with the row, so a sweep reads only rows due (two
 * partial indexes). Every process holding agents sweeps; each ask is first claimed in the store
 * (compare-and-set of the next ask's time), so of several nodes sweeping at once one asks.
 */
export class Reconciler {
  readonly #periodic: PeriodicSweep;

  constructor(private readonly options: ReconcilerOptions) {
    this.#periodic = new PeriodicSweep(() => this.sweep(), options.everyMs);
  }

  start(): void {
    this.#periodic.start();
  }

  /** Sweeps no more, once the sweep under way is done (the store closes after it). */
  stop(): Promise<void> {
    return this.#periodic.stop();
  }

  /** One sweep; returns the asks it made (0 after a failure, which is logged and retried next time). */
  async sweep(now = Date.now()): Promise<number> {
    const { store, agents, logger } = this.options;
    try {
      const [firstAskCut, at] = [new Date(now - Math.min(this.options.afterMs, this.options.boundMs)), new Date(now)];
      const messages = await store.messages.dueForAsk(firstAskCut, at, BATCH);
      const calls = await store.calls.dueForAsk(firstAskCut, at, BATCH);
      const next = (row: Unsettled) => new Date(this.nextAsk(row.createdAt, now));
      const asks = [
        ...messages.map((m) => () =>
          this.#ask(m, m.id, store.messages.claimAsk(m.id, m.nextAskAt ?? null, next(m)), {
            call: () => agents.call('reconcile', m.agentId, { messageId: m.id }),
            settle: () => store.messages.settleUnknown(m.id, AGENT_GONE),
          }),
        ),
        ...calls.map((c) => () =>
          this.#ask(c, c.callSid, store.calls.claimAsk(c.callSid, c.nextAskAt ?? null, next(c)), {
            call: () => agents.call('reconcileCall', c.agentId, { callSid: c.callSid }),
            settle: () => store.calls.settleUnknown(c.callSid),
          }),
        ),
      ];
      let asked = 0;
      for (let i = 0; i < asks.length; i += CONCURRENCY) {
        const results = await Promise.all(asks.slice(i, i + CONCURRENCY).map((ask) => ask()));
        asked += results.filter(Boolean).length;
      }
      return asked;
    } catch (err) {
      logger.warn({ err }, 'reconcile sweep failed; trying again at the next one');
      return 0;
    }
  }

  /**
   * When to ask next about a row created at `createdAt` and asked about at `askedAt`: once its age has
   * doubled, at the latest at the bound. The ask at the bound records `unknown`, so one past it is made
   * only when that did not finish: a sweep later, then spaced out as the time past the bound doubles.
   */
  nextAsk(createdAt: string, askedAt: number): number {
    const sent = Date.parse(createdAt);
    const bound = sent + this.options.boundMs;
    if (askedAt >= bound) return askedAt + Math.max(askedAt - bound, this.options.everyMs);
    return Math.min(askedAt + Math.max(askedAt - sent, this.options.everyMs), bound);
  }

  /**
   * Claims one ask, then has the agent's actor make it; true when this process took it. A row of an
   * agent deprovisioned since has no one to tell: it is recorded `unknown` in the store alone (`settle`).
   */
  async #ask(row: Unsettled, id: string, claim: Promise<boolean>, ask: { call: () => Promise<{ outcome: string; status: string }>; settle: () => Promise<unknown> }): Promise<boolean> {
    const { logger } = this.options;
    if (!(await claim)) return false;
    try {
      const { outcome, status } = await ask.call();
      if (outcome !== 'pending') logger.info({ id, agentId: row.agentId, outcome, status }, 'reconciled with its provider');
    } catch (err) {
      if (hasErrorCode(err, ErrorCodes.NOT_FOUND)) await ask.settle().catch((error: unknown) => logger.warn({ err: error, id }, 'could not be settled'));
      else logger.warn({ err, id, agentId: row.agentId }, 'could not be reconciled; asked again at a later sweep');
    }
    return true;
  }
}
