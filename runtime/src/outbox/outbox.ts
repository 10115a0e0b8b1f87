import type { AgentClient } from '../agents/agent-client.js';
import type { ResumeSendRequest } from '../protocol/operations.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';
import { RetryLater, type WorkQueue, type Worker } from '../work/work-queue.js';

/** What another node needs to finish a send whose node died during the provider call. */
export type SendInFlight = ResumeSendRequest;

export interface OutboxOptions {
  /** Where nodes of v0.41.0 and before journal their sends (`send` items), finished here while such nodes remain. */
  queue: WorkQueue;
  /** Where an unsent send is finished: its agent's actor, wherever it runs (`resumeSend`). */
  agents: AgentClient;
  store: Store;
  logger: Logger;
  /** How long after a node took the agents over it finishes the sends stored before (see resume-delay.ts). */
  resumeAfterMs: number;
  /** The wait before a send still in flight, or whose finishing failed, is offered again (a lease TTL in a cluster). */
  recheckMs: number;
  /**
   * The start-up sweep finishes the unsent sends stored longer ago than this: 0 when no other process
   * can be at a send of this store (embedded), `resumeAfterMs` when other nodes may be.
   */
  sweepAgeMs: number;
}

/** How many times a send left unsent is offered (a recheck apart) before it is left to the next takeover or start-up sweep. */
const OFFERS = 20;
/** Takeovers due this close together are swept with one read (a node takes several partitions at once). */
const TAKEOVER_BATCH_MS = 1000;

/**
 * The send outbox. A send's first commit stores its message with no outcome yet (`store.messages.unsent`):
 * that row is the journal, read again only when a send may have been left unsent. What else a send
 * costs here is an entry in memory ({@link begin}) while this process calls the provider. Who finishes
 * a send left unsent, case by case:
 *
 * - Its node killed during the provider call (`kill -9`): the node that takes the partition over
 *   ({@link takeOver}, from the lease's take-up) finishes the unsent sends of the partition's agents
 *   `resumeAfterMs` later (the dead node's last attempt has timed out by then), by `resumeSend` in the
 *   agent's actor: adopted from the provider (`findSent`) when it got there, else sent again under the
 *   same idempotency key.
 * - Its node stopped cleanly with the send in flight (a handover): the same. The old node's call goes
 *   on; its outcome write is refused by the new tenure, and the new holder finishes the send after the
 *   resume delay, adopting what the provider holds.
 * - Its node cut from NATS: its leases lapse and another node takes the partitions over: the same.
 *   The cut node's writes are fenced from the new tenure on, so none of its sends is stored later.
 * - A provider call slower than `resumeAfterMs` on a node that still holds the agent: nothing to do.
 *   No node takes the partition over, so no one else looks; the node stores the outcome itself.
 * - A send that ends here without its outcome stored while the node may still hold the agent (an
 *   outcome write failed, the database restarting): this outbox offers it to the agent's actor again
 *   after the resume delay, and again while that fails ({@link begin}); if this process dies
 *   meanwhile, the takeover or the start-up sweep finishes it.
 * - Embedded (one process): no takeovers; the start-up sweep ({@link sweep}) finishes what a process
 *   that died left unsent, at the next start.
 *
 * `resumeSend` learns from {@link has} when the send is still in flight in its own process, and skips it.
 * Nodes of v0.41.0 and before journal every send as a `send` work item; until none is left in a rolling
 * upgrade, {@link start} finishes those items as they did.
 */
export class Outbox {
  readonly #local = new Set<string>();
  /** Agents taken over and when their unsent sends are due to be finished. */
  #takeovers: { owns: (agentId: string) => boolean; dueAt: number }[] = [];
  #takeoverTimer: NodeJS.Timeout | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();
  #worker: Worker | undefined;
  #stopped = false;

  constructor(private readonly options: OutboxOptions) {}

  /** Whether this process is calling the provider for the message now. */
  has(messageId: string): boolean {
    return this.#local.has(messageId);
  }

  /** Marks a send as in flight here (a resumed one, which whoever asked asks again if need be); call the returned function when it ends. */
  hold(messageId: string): () => void {
    this.#local.add(messageId);
    return () => this.#local.delete(messageId);
  }

  /**
   * Marks a send as in flight here, from before its first commit (a sweep never takes it for one left
   * unsent); call the returned function once it ends here, with whether it may be left unsent (its
   * message stored and its outcome not: the process lost the agent, or a write failed). Then it is
   * offered to the agent's actor, wherever it runs, after the resume delay.
   */
  begin(send: SendInFlight): (leftUnsent: boolean) => void {
    const release = this.hold(send.messageId);
    return (leftUnsent) => {
      release();
      if (leftUnsent) this.#offer(send, this.options.resumeAfterMs, 1);
    };
  }

  /**
   * This process now serves the agents `owns` selects (a partition taken over): the unsent sends of
   * theirs stored by then are finished once the resume delay has passed, so that a send still in flight
   * at the node that held them has ended. One this process is at itself is skipped.
   */
  takeOver(owns: (agentId: string) => boolean): void {
    if (this.#stopped) return;
    this.#takeovers.push({ owns, dueAt: Date.now() + this.options.resumeAfterMs });
    this.#scheduleTakeovers();
  }

  /**
   * Starts finishing the `send` items older nodes journal. One is first offered when its own process
   * should long have finished it (its item is removed then, so this rarely runs); then the agent's actor
   * finishes it unless its process is still at it.
   */
  async start(): Promise<void> {
    const { agents, logger, resumeAfterMs, recheckMs } = this.options;
    this.#stopped = false;
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
    const { store, logger, sweepAgeMs } = this.options;
    const unsent = await store.messages.unsentBefore(new Date(Date.now() - sweepAgeMs));
    if (unsent.length === 0) return;
    logger.info({ unsent: unsent.length }, 'finishing sends left unsent by a process that died');
    for (const message of unsent) this.#offer({ agentId: message.agentId, messageId: message.id }, 0, 1);
  }

  /** Stops finishing sends; one in hand finishes first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#takeoverTimer);
    this.#takeoverTimer = undefined;
    this.#takeovers = [];
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await this.#worker?.stop();
    this.#worker = undefined;
  }

  /** Sets the timer for the next batch of takeovers due, afresh each time one is added. */
  #scheduleTakeovers(): void {
    clearTimeout(this.#takeoverTimer);
    this.#takeoverTimer = undefined;
    if (this.#takeovers.length === 0) return;
    const first = Math.min(...this.#takeovers.map((t) => t.dueAt));
    // Later is safe, earlier is not: waits for the last takeover due in the batch.
    const next = Math.max(...this.#takeovers.map((t) => t.dueAt).filter((due) => due <= first + TAKEOVER_BATCH_MS));
    this.#takeoverTimer = setTimeout(() => {
      this.#takeoverTimer = undefined;
      void this.#sweepTakeovers().finally(() => this.#scheduleTakeovers());
    }, Math.max(0, next - Date.now()));
    this.#takeoverTimer.unref();
  }

  /** One read for every takeover due: the unsent sends of the agents taken over, each finished unless in flight here. */
  async #sweepTakeovers(): Promise<void> {
    const now = Date.now();
    const due = this.#takeovers.filter((t) => t.dueAt <= now);
    if (due.length === 0 || this.#stopped) return;
    this.#takeovers = this.#takeovers.filter((t) => t.dueAt > now);
    let unsent;
    try {
      unsent = await this.options.store.messages.unsentBefore(new Date(now));
    } catch (err) {
      this.options.logger.warn({ err }, 'sends left unsent by the node before could not be read; reading again');
      if (!this.#stopped) this.#takeovers.push(...due.map((t) => ({ ...t, dueAt: Date.now() + this.options.recheckMs })));
      return;
    }
    const ours = unsent.filter((m) => !this.#local.has(m.id) && due.some((t) => t.owns(m.agentId)));
    if (ours.length > 0) this.options.logger.info({ unsent: ours.length }, 'finishing sends the node before left unsent');
    for (const message of ours) this.#offer({ agentId: message.agentId, messageId: message.id }, 0, 1);
  }

  /** Offers a send left unsent to the agent's actor after `delayMs`, and again while it is in flight or the ask fails. */
  #offer(send: SendInFlight, delayMs: number, attempt: number): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.options.agents.call('resumeSend', send.agentId, send).then(
        ({ outcome }) => {
          if (outcome === 'in_flight') this.#again(send, attempt, undefined);
          else if (outcome !== 'settled') this.options.logger.info({ messageId: send.messageId, outcome }, 'send left unsent, finished');
        },
        (err: unknown) => this.#again(send, attempt, err),
      );
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  #again(send: SendInFlight, attempt: number, err: unknown): void {
    if (attempt < OFFERS) return this.#offer(send, this.options.recheckMs, attempt + 1);
    this.options.logger.warn({ err, messageId: send.messageId }, 'send left unsent not finished; a takeover of its agent or the next start finishes it');
  }
}
