import type { AgentClient } from '../agents/agent-client.js';
import type { Logger } from '../logger.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';

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
/** Messages looked at per sweep, oldest first; the rest wait for the next sweep. */
const BATCH = 500;

/**
 * Gives every outbound message a final status within the bound, when its provider's receipts stop
 * coming: sweeps for sent messages still without one, and has each agent's actor ask the provider
 * (`reconcile`) after `afterMs`, then each time the message's age has doubled, and a last time at
 * `boundMs`, which records `unknown` with the reason when no final answer came. Every process holding
 * agents sweeps; each ask is first claimed in the store (compare-and-set on the last ask's time), so of
 * several nodes sweeping at once one asks.
 */
export class Reconciler {
  #timer: NodeJS.Timeout | undefined;
  /** The sweep under way, which stop waits for: the store closes after it. */
  #sweeping: Promise<number> | undefined;

  constructor(private readonly options: ReconcilerOptions) {}

  start(): void {
    this.#timer = setInterval(() => {
      this.#sweeping ??= this.sweep().finally(() => (this.#sweeping = undefined));
    }, this.options.everyMs);
    this.#timer.unref();
  }

  /** Sweeps no more, once the sweep under way is done. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  /** One sweep; returns the asks it made (0 after a failure, which is logged and retried next time). */
  async sweep(now = Date.now()): Promise<number> {
    const { store, logger } = this.options;
    try {
      const candidates = await store.messages.unsettledBefore(new Date(now - Math.min(this.options.afterMs, this.options.boundMs)), BATCH);
      const due = candidates.filter((m) => this.dueAt(m) <= now);
      let asked = 0;
      for (let i = 0; i < due.length; i += CONCURRENCY) {
        const results = await Promise.all(due.slice(i, i + CONCURRENCY).map((m) => this.askAbout(m, now)));
        asked += results.filter(Boolean).length;
      }
      return asked;
    } catch (err) {
      logger.warn({ err }, 'reconcile sweep failed; trying again at the next one');
      return 0;
    }
  }

  /** When the message is next to be asked about: after `afterMs`, then at double its age at the last ask, at the latest at the bound. */
  dueAt(message: MessageRecord): number {
    const sent = Date.parse(message.createdAt);
    const bound = sent + this.options.boundMs;
    if (!message.reconciledAt) return Math.min(sent + this.options.afterMs, bound);
    const last = Date.parse(message.reconciledAt);
    // Asked at or past the bound already: the ask that was to record `unknown` did not finish; again.
    if (last >= bound) return last + this.options.everyMs;
    return Math.min(last + Math.max(last - sent, this.options.everyMs), bound);
  }

  async askAbout(message: MessageRecord, now: number): Promise<boolean> {
    const { store, agents, logger } = this.options;
    if (!(await store.messages.claimReconcile(message.id, message.reconciledAt ?? null, new Date(now)))) return false;
    try {
      const { outcome, status } = await agents.call('reconcile', message.agentId, { messageId: message.id });
      if (outcome !== 'pending') logger.info({ messageId: message.id, agentId: message.agentId, outcome, status }, 'outbound message reconciled with its provider');
    } catch (err) {
      logger.warn({ err, messageId: message.id, agentId: message.agentId }, 'an outbound message could not be reconciled; asked again at a later sweep');
    }
    return true;
  }
}
