import type { RuntimeEvents } from '../events.js';
import { messageDeadLetter } from '../store/repositories/dead-letters.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../secrets.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { SqlStatement } from '../store/database.js';
import type { Store } from '../store/store.js';
import { RetryLater, type WorkQueue, type Worker } from '../work/work-queue.js';
import type { LiveReach } from '../agents/live-reach.js';
import { postCallback } from './callback-client.js';
import { agentEvent, deliveryEventId, inboundData, type AgentEvent } from './events.js';

/** How a delivery reaches the agent's live session (see LiveReach: in process, or over NATS). */
export type LiveSink = Pick<LiveReach, 'deliver' | 'holds'>;

/** Where an agent takes callbacks, as stored. */
type Callback = Pick<AgentRecord, 'callbackUrl' | 'sealedSigningSecret'>;

export interface CallbackPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Delay before the first retry; each next one doubles. */
  baseDelayMs: number;
  timeoutMs: number;
}

/** What a queued `notify` retry carries. */
interface NotifyItem {
  readonly agentId: string;
  readonly event: AgentEvent;
}

/** The message and agent records a delivery scheduled here starts from, saving its first attempt two reads. */
interface Scheduled {
  readonly message: MessageRecord;
  readonly agent: AgentRecord | undefined;
}

/** Most records kept for deliveries scheduled here and not yet run (one run elsewhere never takes its own). */
const MAX_SCHEDULED = 1000;

/**
 * The delivery chain for inbound messages: the agent's live session, else its callback URL (signed,
 * retried with exponential backoff), else a dead letter. Each delivery is a work item (`deliver`) on
 * the work queue it is given, each callback attempt one run of the item, so the attempt count is the
 * queue's and a retry outlives a cluster node. A message is marked delivered or turned into a dead
 * letter in one transaction; until then it stays pending in the store and {@link recover} queues it
 * again at start, so nothing acknowledged to a provider is lost.
 */
export class DeliveryService {
  readonly #scheduled = new Map<string, Scheduled>();
  readonly #workers: Worker[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #abort = new AbortController();

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly events: RuntimeEvents,
    private readonly logger: Logger,
    private readonly policy: CallbackPolicy,
    private readonly queue: WorkQueue,
    /** The agents' live sessions, wherever they are held. */
    private readonly live: LiveSink,
  ) {}

  /**
   * Starts running queued deliveries and notification retries. The last attempt of a delivery writes
   * the dead letter itself, so its worker never gives up on one.
   */
  async start(): Promise<void> {
    this.#workers.push(
      await this.queue.process<{ messageId: string }>('deliver', (item) => this.deliverQueued(item.payload.messageId, item.attempt), {
        concurrency: 64,
        maxDeliver: Infinity,
        retryDelayMs: (attempt) => this.retryDelayMs(attempt),
      }),
      await this.queue.process<NotifyItem>('notify', (item) => this.#notifyAgain(item.payload, item.attempt), {
        concurrency: 16,
        maxDeliver: this.policy.attempts,
        retryDelayMs: (attempt) => this.retryDelayMs(attempt),
        onGiveUp: (item) => void this.logger.debug({ agentId: item.payload.agentId, attempts: item.attempt }, 'notification not delivered; dropped'),
      }),
    );
  }

  /** Whether an event for this agent would reach anyone: a live session or a callback URL. */
  reachable(agent: AgentRecord): boolean {
    return agent.callbackUrl !== null || this.live.holds(agent.agentId);
  }

  /**
   * Hands a stored inbound message to the chain before the provider is acknowledged: resolves once its
   * delivery is queued (a repeat of a queued one is dropped), so a node that dies next leaves it to
   * another. `agent` is the actor's current record, which saves the first attempt a read.
   */
  async schedule(message: MessageRecord, agent?: AgentRecord): Promise<void> {
    if (this.#scheduled.size >= MAX_SCHEDULED) this.#scheduled.delete(this.#scheduled.keys().next().value!);
    this.#scheduled.set(message.id, { message, agent });
    try {
      const { duplicate } = await this.queue.enqueue('deliver', message.id, { messageId: message.id });
      if (duplicate) this.#scheduled.delete(message.id);
    } catch (err) {
      this.#scheduled.delete(message.id);
      throw err;
    }
  }

  /**
   * Embedded, for an agent that no one would hear now (no live session, no callback URL): the dead
   * letter its delivery would write at once, as a statement to commit in the same atomic group as the
   * message (it goes in only if the message does). One commit per webhook instead of two, and the
   * message is never pending. Undefined when the chain must run; call {@link lettered} after the commit.
   */
  offlineLetter(message: MessageRecord, agent: AgentRecord): SqlStatement | undefined {
    if (this.reachable(agent)) return undefined;
    return this.store.deadLetters.insertForStoredMessageStatement(messageDeadLetter(message, 'agent_offline', 0), message.id);
  }

  /** Reports the letter of {@link offlineLetter}, once committed with its message. */
  lettered(message: MessageRecord): void {
    this.events.emit('deadLetter', { agentId: message.agentId, reason: 'agent_offline' });
  }

  /**
   * Runs attempt `attempt` of the chain for a queued message (a `deliver` work item): the live session,
   * else ONE callback post. A failed post throws, for the work to come back after {@link retryDelayMs},
   * until the last attempt, which makes the dead letter: the attempt count is the work's, so it
   * survives a cluster node. Nothing happens when the message was delivered or dead-lettered already
   * (the item ran before, on a node that died before acking); a stopping process throws at once, so
   * the work goes to another node (or, embedded, stays pending in the store for the next start).
   */
  async deliverQueued(messageId: string, attempt = 1): Promise<void> {
    const scheduled = this.#scheduled.get(messageId);
    this.#scheduled.delete(messageId);
    if (this.#abort.signal.aborted) throw new Error(`stopping: message ${messageId} stays pending for another node`);
    // A first attempt of a delivery scheduled here starts from the records it was scheduled with (the
    // message was stored pending just before); any other from one read of the message and its callback.
    let message: MessageRecord;
    let callback: Callback | undefined;
    if (attempt === 1 && scheduled) {
      message = scheduled.message;
      callback = scheduled.agent;
    } else {
      const pending = await this.store.messages.pendingDeliveryWithCallback(messageId);
      if (!pending) return;
      message = pending.message;
      callback = { callbackUrl: pending.callbackUrl, sealedSigningSecret: pending.sealedSigningSecret };
    }
    const event = inboundEvent(message);
    const target = await this.#liveOrCallback(message, event, callback);
    if (!target) return;
    try {
      await postCallback(target.url, target.secret, event, this.policy.timeoutMs);
    } catch (err) {
      if (attempt < this.policy.attempts) throw err;
      await this.#deadLetter(message, 'callback_failed', attempt, errorMessage(err));
      return;
    }
    await this.store.messages.markDelivered(message.id);
  }

  /** The wait after failed callback attempt `attempt`, doubling from the base. */
  retryDelayMs(attempt: number): number {
    // Capped at the last attempt's: an attempt past it only follows a lost node or a hand-back.
    return this.policy.baseDelayMs * 2 ** (Math.min(attempt, this.policy.attempts) - 1);
  }

  /**
   * Best-effort notification (delivery receipts): live session, else one callback post now; a failed
   * post is retried as queued work (`notify`), never dead-lettered.
   */
  notify(agentId: string, event: AgentEvent, agent?: Callback): void {
    this.#track(
      (async () => {
        if (await this.#tryLive(agentId, event)) return;
        // The actor's current record, when given, saves a read.
        const target = agent ? this.#callbackFrom(agent) : await this.#callbackOf(agentId);
        if (!target) return;
        try {
          await postCallback(target.url, target.secret, event, this.policy.timeoutMs);
        } catch (err) {
          if (this.policy.attempts < 2 || this.#abort.signal.aborted) return;
          this.logger.debug({ agentId, reason: errorMessage(err) }, 'callback attempt failed; queued for a retry');
          const item: NotifyItem = { agentId, event };
          await this.queue.enqueue('notify', event.id, item);
        }
      })(),
    );
  }

  /** Attempt `attempt` of a notification's callback: the first was made by {@link notify}, so the item's first run only waits. */
  async #notifyAgain({ agentId, event }: NotifyItem, attempt: number): Promise<void> {
    if (attempt === 1) throw new RetryLater(`notification ${event.id} was just posted`);
    if (this.#abort.signal.aborted) throw new Error(`stopping: notification ${event.id} goes to another node`);
    const target = await this.#callbackOf(agentId);
    if (target) await postCallback(target.url, target.secret, event, this.policy.timeoutMs);
  }

  /** Queues again every message still pending (for example after a crash). Returns how many. */
  async recover(): Promise<number> {
    const pending = await this.store.messages.pendingDeliveries();
    for (const message of pending) await this.queue.enqueue('deliver', message.id, { messageId: message.id });
    return pending.length;
  }

  /** Stops retrying; an item in hand is handed back (another node takes it; embedded, it stays pending in the store for the next start). */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled([...this.#inFlight]);
    await Promise.all(this.#workers.splice(0).map((w) => w.stop()));
  }

  /** The live session takes the message (marked delivered), or the callback to post it to; without one it is dead-lettered. */
  async #liveOrCallback(message: MessageRecord, event: AgentEvent, agent?: Callback): Promise<{ url: string; secret: string } | undefined> {
    if (await this.#tryLive(message.agentId, event)) {
      await this.store.messages.markDelivered(message.id);
      return undefined;
    }
    const target = agent ? this.#callbackFrom(agent) : await this.#callbackOf(message.agentId);
    if (!target) await this.#deadLetter(message, 'agent_offline', 0);
    return target;
  }

  async #tryLive(agentId: string, event: AgentEvent): Promise<boolean> {
    try {
      return await this.live.deliver(agentId, event);
    } catch (err) {
      this.logger.warn({ err, agentId }, 'live delivery failed; falling back');
      return false;
    }
  }

  async #callbackOf(agentId: string): Promise<{ url: string; secret: string } | undefined> {
    const agent = await this.store.agents.get(agentId);
    return agent && this.#callbackFrom(agent);
  }

  #callbackFrom(agent: Callback): { url: string; secret: string } | undefined {
    if (!agent.callbackUrl || !agent.sealedSigningSecret) return undefined;
    return { url: agent.callbackUrl, secret: this.box.open(agent.sealedSigningSecret) };
  }

  async #deadLetter(message: MessageRecord, reason: 'agent_offline' | 'callback_failed', attempts: number, error?: string): Promise<void> {
    await this.store.deadLetters.insert(messageDeadLetter(message, reason, attempts, error), undefined, message.id);
    this.events.emit('deadLetter', { agentId: message.agentId, reason });
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((err) => this.logger.error({ err }, 'delivery failed; the message stays pending')).finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }
}

function inboundEvent(message: MessageRecord): AgentEvent {
  return agentEvent('message.inbound', message.agentId, inboundData(message), deliveryEventId(message.id));
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
