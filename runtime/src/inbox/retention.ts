import type { Logger } from '../logger.js';
import { PeriodicSweep } from '../periodic-sweep.js';
import type { Store } from '../store/store.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Removes acknowledged inbox entries older than the retention, and the callback delivery log and the
 * settled callback events older than theirs (and what other retentions add with `also`: call
 * recordings, expired MCP tasks), at start and hourly. Every process holding agents runs it; in a cluster the sweeps of
 * several nodes are the same idempotent DELETE.
 */
export class InboxRetention {
  readonly #periodic: PeriodicSweep;
  /** Other retentions swept at the same times (call recordings, expired tasks). */
  readonly #others: { name: string; sweep: (now: number) => Promise<number> }[] = [];

  constructor(
    private readonly store: Store,
    private readonly days: number,
    private readonly logger: Logger,
    /** The callback delivery log's retention (CALLBACK_LOG_RETENTION_DAYS). */
    private readonly callbackLogDays = days,
    everyMs = HOUR_MS,
  ) {
    this.#periodic = new PeriodicSweep(() => this.sweep(), everyMs);
  }

  /** Sweeps `sweep` (what another retention removes) with each sweep of this one. */
  also(name: string, sweep: (now: number) => Promise<number>): this {
    this.#others.push({ name, sweep });
    return this;
  }

  start(): void {
    this.#periodic.start(true);
  }

  /** Sweeps no more, once the sweep under way is done (the store closes after it). */
  stop(): Promise<void> {
    return this.#periodic.stop();
  }

  /** One sweep; returns the entries removed (0 after a failure, which is logged and retried next time). */
  async sweep(now = Date.now()): Promise<number> {
    try {
      const removed = await this.store.inbox.sweepAcknowledged(new Date(now - this.days * DAY_MS));
      if (removed > 0) this.logger.info({ removed }, 'acknowledged inbox entries past their retention removed');
      const logRows = await this.store.callbacks.sweep(new Date(now - this.callbackLogDays * DAY_MS));
      if (logRows > 0) this.logger.info({ removed: logRows }, 'callback delivery log rows and settled events past their retention removed');
      return removed + logRows + (await this.#sweepOthers(now));
    } catch (err) {
      this.logger.warn({ err }, 'inbox retention sweep failed; trying again at the next one');
      return 0;
    }
  }

  async #sweepOthers(now: number): Promise<number> {
    let removed = 0;
    for (const { name, sweep } of this.#others) {
      removed += await sweep(now).catch((err: unknown) => {
        this.logger.warn({ err }, `${name} retention sweep failed; trying again at the next one`);
        return 0;
      });
    }
    return removed;
  }
}
