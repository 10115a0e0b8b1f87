import pRetry, { AbortError } from 'p-retry';
import type { RuntimeEvents } from '../events.js';
import { messageDeadLetter } from '../store/repositories/dead-letters.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../secrets.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { SqlStatement } from '../store/database.js';
import type { Store } from '../store/store.js';
import type { LiveReach } from '../agents/live-reach.js';
import { postCallback } from './callback-client.js';
import { agentEvent, deliveryEventId, inboundData, type AgentEvent } from './events.js';

/** How a delivery reaches the agent's live session (see LiveReach: in process, or over NATS). */
export type LiveSink = Pick<LiveReach, 'deliver' | 'holds'>;

/** Where an agent takes callbacks, as stored. */
type Callback = Pick<AgentRecord, 'callbackUrl' | 'sealedSigningSecret'>;

/** Cluster mode: stores the delivery of a message as durable work; resolves once it is stored. */
export type DeliveryQueue = (message: MessageRecord) => Promise<void>;

export interface CallbackPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Delay before the first retry; each next one doubles. */
  baseDelayMs: number;
  timeoutMs: number;
}

/**
 * The delivery chain for inbound messages: the agent's live session, else its callback URL (signed,
 * retried with exponential backoff: in process embedded, as redeliveries of the work item in a
 * cluster), else a dead letter. A message is marked delivered or turned into a dead letter in one
 * transaction; until then it stays pending in the store and is re-driven at start, so nothing
 * acknowledged to a provider is lost.
 */
export class DeliveryService {
  #queue: DeliveryQueue | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #abort = new AbortController();

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly events: RuntimeEvents,
    private readonly logger: Logger,
    private readonly policy: CallbackPolicy,
    /** The agents' live sessions, wherever they are held. */
    private readonly live: LiveSink,
  ) {}

  /** Whether an event for this agent would reach anyone: a live session or a callback URL. */
  reachable(agent: AgentRecord): boolean {
    return agent.callbackUrl !== null || this.live.holds(agent.agentId);
  }

  /** Cluster mode: deliveries become durable work that any runtime node runs through {@link deliverQueued}. */
  setQueue(queue: DeliveryQueue): void {
    this.#queue = queue;
  }

  /** Whether deliveries are durable work (cluster), so scheduling one twice is harmless. */
  get queued(): boolean {
    return this.#queue !== undefined;
  }

  /**
   * Hands a stored inbound message to the chain before the provider is acknowledged: embedded, the
   * delivery starts now (the store is its record); in a cluster, it resolves once the work is queued,
   * so a node that dies next leaves it to another.
   */
  async schedule(message: MessageRecord, agent?: AgentRecord): Promise<void> {
    if (this.#queue) await this.#queue(message);
    else this.deliverInbound(message, agent);
  }

  /**
   * Embedded, for an agent that no one would hear now (no live session, no callback URL): the dead
   * letter its delivery would write at once, as a statement to commit in the same atomic group as the
   * message (it goes in only if the message does). One commit per webhook instead of two, and the
   * message is never pending. Undefined when the chain must run; call {@link lettered} after the commit.
   */
  offlineLetter(message: MessageRecord, agent: AgentRecord): SqlStatement | undefined {
    if (this.#queue || this.reachable(agent)) return undefined;
    return this.store.deadLetters.insertForStoredMessageStatement(messageDeadLetter(message, 'agent_offline', 0), message.id);
  }

  /** Reports the letter of {@link offlineLetter}, once committed with its message. */
  lettered(message: MessageRecord): void {
    this.events.emit('deadLetter', { agentId: message.agentId, reason: 'agent_offline' });
  }

  /**
   * Runs attempt `attempt` of the chain for a queued message (a cluster work item): the live session,
   * else ONE callback post. A failed post throws, for the work to come back after {@link retryDelayMs},
   * until the last attempt, which makes the dead letter: the attempt count is the work's, so it
   * survives the node. Nothing happens when the message was delivered or dead-lettered already (the
   * item ran before, on a node that died before acking); a stopping node throws at once, so the work
   * goes to another node.
   */
  async deliverQueued(messageId: string, attempt = 1): Promise<void> {
    if (this.#abort.signal.aborted) throw new Error(`stopping: message ${messageId} stays pending for another node`);
    const pending = await this.store.messages.pendingDeliveryWithCallback(messageId);
    if (!pending) return;
    const { message } = pending;
    const event = inboundEvent(message);
    const target = await this.#liveOrCallback(message, event, { callbackUrl: pending.callbackUrl, sealedSigningSecret: pending.sealedSigningSecret });
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

  /** Cluster mode: the wait after failed attempt `attempt` of a queued delivery, doubling from the base. */
  retryDelayMs(attempt: number): number {
    // Capped at the last attempt's: an attempt past it only follows a lost node or a hand-back.
    return this.policy.baseDelayMs * 2 ** (Math.min(attempt, this.policy.attempts) - 1);
  }

  /**
   * Starts delivering a stored inbound message; never throws, the outcome is recorded in the store.
   * `agent` is the actor's current record, which saves a read; without it the store is asked.
   */
  deliverInbound(message: MessageRecord, agent?: AgentRecord): void {
    this.#track(this.#deliver(message, agent));
  }

  /** Best-effort notification (delivery receipts): live session, else callback with retries; not dead-lettered. */
  notify(agentId: string, event: AgentEvent, agent?: Callback): void {
    this.#track(
      (async () => {
        if (await this.#tryLive(agentId, event)) return;
        const target = agent ? this.#callbackFrom(agent) : await this.#callbackOf(agentId);
        if (target) await this.#post(target, event).catch(() => undefined);
      })(),
    );
  }

  /** Re-drives every message still pending (for example after a crash). Returns how many. */
  async recover(): Promise<number> {
    const pending = await this.store.messages.pendingDeliveries();
    for (const message of pending) await this.schedule(message);
    return pending.length;
  }

  /** Stops retrying; messages still pending stay pending in the store for the next start. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled([...this.#inFlight]);
  }

  async #deliver(message: MessageRecord, agent?: AgentRecord): Promise<void> {
    const event = inboundEvent(message);
    const target = await this.#liveOrCallback(message, event, agent);
    if (!target) return;
    let attempts = 0;
    try {
      await this.#post(target, event, () => attempts++);
      await this.store.messages.markDelivered(message.id);
    } catch (err) {
      if (this.#abort.signal.aborted) return;
      await this.#deadLetter(message, 'callback_failed', attempts, errorMessage(err));
    }
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

  async #post(target: { url: string; secret: string }, event: AgentEvent, onAttempt: () => void = () => undefined): Promise<void> {
    await pRetry(
      async () => {
        if (this.#abort.signal.aborted) throw new AbortError('shutting down');
        onAttempt();
        await postCallback(target.url, target.secret, event, this.policy.timeoutMs);
      },
      {
        retries: this.policy.attempts - 1,
        minTimeout: this.policy.baseDelayMs,
        factor: 2,
        randomize: true,
        signal: this.#abort.signal,
        onFailedAttempt: (err) => this.logger.debug({ agentId: event.agentId, attempt: err.attemptNumber, reason: err.message }, 'callback attempt failed'),
      },
    );
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
