import type { AgentClient } from '../agents/agent-client.js';
import type { ResumeSendRequest } from '../protocol/operations.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';
import { RetryLater, type WorkQueue, type Worker } from '../work/work-queue.js';

/** What another node needs to finish a send whose node died during the provider call. */
export type SendInFlight = ResumeSendRequest;

export interface OutboxOptions {
  /** Where sends in flight are journaled (`send` items). */
  queue: WorkQueue;
  /** Where a journaled or unsent send is finished: its agent's actor, wherever it runs (`resumeSend`). */
  agents: AgentClient;
  store: Store;
  logger: Logger;
  /** How long after it was journaled a send is first offered to be finished elsewhere (see resume-delay.ts). */
  resumeAfterMs: number;
  /** The wait before a send still in flight is offered again (a lease TTL in a cluster). */
  recheckMs: number;
  /**
   * The start-up sweep finishes the unsent sends stored longer ago than this: 0 when no other process
   * can be at a send of this store (embedded), `resumeAfterMs` when other nodes may be.
   */
  sweepAgeMs: number;
}

/**
 * The send outbox: the sends this process is calling a provider for right now, each journaled as a
 * work item (`send`) once stored and removed once its outcome is stored. A journaled send that comes
 * back (its process died, or is slow past `resumeAfterMs`) is finished by the agent's actor wherever
 * it runs now (`resumeSend`), which learns from {@link has} when the send is still in flight there.
 * The start-up sweep ({@link sweep}) finishes what no journal holds (a process that died between the
 * store and the journal, or an in-process journal lost with its process).
 */
export class Outbox {
  readonly #local = new Set<string>();
  #worker: Worker | undefined;

  constructor(private readonly options: OutboxOptions) {}

  /** Whether this process is calling the provider for the message now. */
  has(messageId: string): boolean {
    return this.#local.has(messageId);
  }

  /** Marks a send as in flight here (a resumed one, whose journal is what asked); call the returned function when it ends. */
  hold(messageId: string): () => void {
    this.#local.add(messageId);
    return () => this.#local.delete(messageId);
  }

  /**
   * Marks a stored send as in flight here and journals it; call the returned function once the send
   * ends here: `settled` when its outcome is stored (the journal entry goes), false when it may not be
   * (the process lost the agent, or a write failed): the entry stays, and comes back after the resume
   * delay to the agent's actor, wherever it runs, which finishes the send or finds it settled. A journal
   * that cannot be written does not stop the send: the message is stored, and the caller has no answer
   * yet, so nothing acknowledged depends on it (the sweep finishes it).
   */
  async begin(send: SendInFlight): Promise<(settled: boolean) => void> {
    const release = this.hold(send.messageId);
    let remove = () => {};
    try {
      const journaled = await this.options.queue.enqueue('send', send.messageId, send);
      remove = () =>
        void journaled.remove().catch((err: unknown) => this.options.logger.debug({ err, messageId: send.messageId }, 'journaled send left for its worker'));
    } catch (err) {
      this.options.logger.warn({ err, messageId: send.messageId }, 'send in flight not journaled; if this process dies, a start-up sweep finishes it');
    }
    return (settled) => {
      release();
      if (settled) remove();
    };
  }

  /**
   * Starts finishing journaled sends. One is first offered when its own process should long have
   * finished it (its item is removed then, so this rarely runs); then the agent's actor finishes it
   * unless its process is still at it.
   */
  async start(): Promise<void> {
    const { agents, logger, resumeAfterMs, recheckMs } = this.options;
    this.#worker = await this.options.queue.process<SendInFlight>(
      'send',
      async (item) => {
        if (item.attempt === 1) throw new RetryLater(`send ${item.id} is with its own process`);
        const { outcome } = await agents.call('resumeSend', item.payload.agentId, item.payload);
        if (outcome === 'in_flight') throw new RetryLater(`send ${item.id} is still in flight`);
        if (outcome !== 'settled') logger.info({ messageId: item.id, outcome }, 'finished a send whose process died');
      },
      { concurrency: 16, maxDeliver: Infinity, retryDelayMs: (attempt) => (attempt === 1 ? resumeAfterMs : recheckMs) },
    );
  }

  /**
   * Has the agents' actors finish, in the background, the sends stored more than `sweepAgeMs` ago and
   * never sent (their process died during the provider call); an actor skips one its process is still at.
   */
  async sweep(): Promise<void> {
    const { store, agents, logger, sweepAgeMs } = this.options;
    const unsent = await store.messages.unsentBefore(new Date(Date.now() - sweepAgeMs));
    if (unsent.length === 0) return;
    logger.info({ unsent: unsent.length }, 'finishing sends left unsent by a process that died');
    for (const message of unsent) {
      void agents.call('resumeSend', message.agentId, { messageId: message.id }).then(
        ({ outcome }) => logger.info({ messageId: message.id, outcome }, 'send left unsent, finished'),
        (err: unknown) => logger.warn({ err, messageId: message.id }, 'send left unsent could not be finished; it is tried again at the next start'),
      );
    }
  }

  /** Stops finishing journaled sends; one in hand finishes first. */
  async stop(): Promise<void> {
    await this.#worker?.stop();
    this.#worker = undefined;
  }
}
