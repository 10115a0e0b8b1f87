import type { RuntimeEvents } from '../events.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../secrets.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { SqlStatement } from '../store/database.js';
import { messageDeadLetter, type DeadLetterRepository } from '../store/repositories/dead-letters.js';
import type { Store } from '../store/store.js';
import type { ReplaySelection } from '../store/repositories/callbacks.js';
import { RetryLater, type WorkQueue, type Worker } from '../work/work-queue.js';
import type { LiveReach } from '../agents/live-reach.js';
import { agentEvent, CallbackSender, deliveryEventId, inboundData, type AgentEvent, type CallbackPolicy, type CallbackTarget, type CallbackTurn } from './agent-events.js';

export type { CallbackPolicy };

/** How a delivery reaches the agent's live session (see LiveReach: in process, or over NATS). */
export type LiveSink = Pick<LiveReach, 'deliver' | 'holds'>;

/** Where an agent takes callbacks, as stored. */
type Callback = Pick<AgentRecord, 'callbackUrl' | 'sealedSigningSecret'>;

/** What a queued `notify` turn carries: the kept event's id (its payload is in the store). */
interface NotifyItem {
  readonly agentId: string;
  readonly eventId: string;
}

/** The wait before a turn that failed without an answer of its own (a store fault) comes back. */
const FAULT_RETRY_MS = 5000;
const PARK_AFTER_MS = 60_000;
const PARK_SWEEP_MS = 30_000;

/** What storing an inbound message asks of the delivery chain: a letter in its commit, or its delivery queued after it. */
export interface InboundDelivery {
  /**
   * For an agent that no one would hear now (no live session, no callback URL): the dead letter its
   * delivery would write at once, as a statement to commit in the same atomic group as the message (it
   * goes in only if the message does). One commit per webhook instead of two, and the message is never
   * pending. Undefined when the chain must run; call {@link lettered} after the commit.
   */
  offlineLetter(message: MessageRecord, agent: AgentRecord): SqlStatement | undefined;
  /** Reports the letter of {@link offlineLetter}, once committed with its message. */
  lettered(message: MessageRecord): void;
  /**
   * Queues the delivery of a stored inbound message (a repeat of a queued one is dropped); resolves once
   * it is queued, so that whichever process runs deliveries takes it even if this one dies next.
   */
  schedule(message: MessageRecord, agent?: AgentRecord): Promise<void>;
  /** Whether an event for this agent would reach anyone: a live session or a callback URL. */
  reachable(agent: AgentRecord): boolean;
  /** Tells the agent an event (a receipt's `message.status`); resolves once it is on its way for good. */
  notify(agentId: string, event: AgentEvent, agent: AgentRecord): void | Promise<void>;
}

/**
 * Orders deliveries without running them: what a process that stores inbound messages at the edge
 * (a cluster gateway) needs, the `deliver` work item the runtime nodes' {@link DeliveryService} runs.
 * The DeliveryService orders through it too, so the letter-or-queue decision is made in one place.
 */
export class DeliveryOrders implements InboundDelivery {
  constructor(
    private readonly deadLetters: Pick<DeadLetterRepository, 'insertForStoredMessageStatement'>,
    private readonly events: RuntimeEvents,
    private readonly queue: Pick<WorkQueue, 'enqueue'>,
    /** The agents' live sessions, wherever they are held (a view that follows presence, in a cluster). */
    private readonly live: Pick<LiveReach, 'holds'>,
  ) {}

  /** Whether an event for this agent would reach anyone: a live session or a callback URL. */
  reachable(agent: AgentRecord): boolean {
    return agent.callbackUrl !== null || this.live.holds(agent.agentId);
  }

  offlineLetter(message: MessageRecord, agent: AgentRecord): SqlStatement | undefined {
    if (this.reachable(agent)) return undefined;
    return this.deadLetters.insertForStoredMessageStatement(messageDeadLetter(message, 'agent_offline', 0), message.id);
  }

  lettered(message: MessageRecord): void {
    this.events.emit('deadLetter', { agentId: message.agentId, reason: 'agent_offline' });
  }

  async schedule(message: MessageRecord): Promise<void> {
    await this.enqueue(message);
  }

  /** Queues the event whole (a `notify` item), for the runtime nodes to tell the agent as {@link DeliveryService.notify} does. */
  async notify(agentId: string, event: AgentEvent): Promise<void> {
    await this.queue.enqueue('notify', event.id, { agentId, eventId: event.id, event });
  }

  /** Queues the `deliver` item of a stored message; whether it was queued already. */
  async enqueue(message: MessageRecord): Promise<boolean> {
    const { duplicate } = await this.queue.enqueue('deliver', message.id, { messageId: message.id });
    return duplicate;
  }
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
 * retried on the policy's schedule), else a dead letter. Each delivery is a work item (`deliver`) on
 * the work queue it is given, each callback attempt one run of the item. An event that goes to a
 * callback URL is kept in the store with where its schedule stands (`CallbackSender`), so the attempt
 * count and the next wait outlive a restart and a cluster node; each attempt is a row of the delivery
 * log. A message is marked delivered or turned into a dead letter in one transaction; until then it
 * stays pending in the store and {@link recover} queues it again at start, so nothing acknowledged to
 * a provider is lost. Notifications and operator replays are `notify` items over kept events. A wait
 * longer than a minute is not held in the queue: the event is parked in the store and queued again
 * by {@link unparkDue} when nearly due.
 */
export class DeliveryService implements InboundDelivery {
  readonly #scheduled = new Map<string, Scheduled>();
  readonly #workers: Worker[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  readonly #sender: CallbackSender;
  readonly #orders: DeliveryOrders;
  readonly #parkAfterMs: number;
  readonly #parkSweepMs: number;
  #parkSweep: NodeJS.Timeout | undefined;
  /** The sweep of parked events under way, which stop waits for (the store closes after it). */
  #unparking: Promise<number> | undefined;

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly events: RuntimeEvents,
    private readonly logger: Logger,
    private readonly policy: CallbackPolicy,
    private readonly queue: WorkQueue,
    /** The agents' live sessions, wherever they are held. */
    private readonly live: LiveSink,
  ) {
    this.#sender = new CallbackSender(store, policy, logger, events);
    this.#orders = new DeliveryOrders(store.deadLetters, events, queue, live);
    this.#parkAfterMs = policy.parkAfterMs ?? PARK_AFTER_MS;
    this.#parkSweepMs = Math.min(policy.parkSweepMs ?? PARK_SWEEP_MS, this.#parkAfterMs);
  }

  /**
   * Starts running queued deliveries and notification retries. The last attempt of a delivery writes
   * the dead letter itself, so its worker never gives up on one.
   */
  async start(): Promise<void> {
    this.#workers.push(
      await this.queue.process<{ messageId: string }>('deliver', (item) => this.deliverQueued(item.payload.messageId, item.attempt), {
        concurrency: 64,
        maxDeliver: Infinity,
        retryDelayMs: FAULT_RETRY_MS,
      }),
      await this.queue.process<NotifyItem>('notify', (item) => this.#notifyTurn(item.payload), {
        concurrency: 16,
        maxDeliver: Infinity,
        retryDelayMs: FAULT_RETRY_MS,
      }),
    );
    // At once for what waited through a restart, then every sweep interval.
    this.#unparking = this.unparkDue();
    this.#parkSweep = setInterval(() => (this.#unparking = this.unparkDue()), this.#parkSweepMs);
    this.#parkSweep.unref();
  }

  /**
   * Queues again the parked events due before the next sweep (each process sweeps; in a cluster the
   * same item id from two nodes is one item). Returns how many.
   */
  async unparkDue(): Promise<number> {
    try {
      const due = await this.store.callbacks.parkedBefore(new Date(this.#sender.now() + this.#parkSweepMs));
      for (const kept of due) {
        if (kept.messageId !== null && kept.replays === 0) await this.queue.enqueue('deliver', `${kept.messageId}-a${kept.attempts}`, { messageId: kept.messageId });
        else await this.queue.enqueue('notify', `${kept.eventId}-r${kept.replays}-a${kept.attempts}`, { agentId: kept.agentId, eventId: kept.eventId } satisfies NotifyItem);
        await this.store.callbacks.unpark(kept.eventId, kept.parkedUntil!);
      }
      return due.length;
    } catch (err) {
      this.logger.warn({ err }, 'parked callbacks could not be queued; trying again at the next sweep');
      return 0;
    }
  }

  /** A turn to come back later: in the work queue for a short wait, parked in the store for a long one. */
  async #comeBack(eventId: string, turn: Extract<CallbackTurn, { kind: 'later' }>): Promise<void> {
    if (turn.delayMs <= this.#parkAfterMs) throw new RetryLater(turn.reason, turn.delayMs);
    await this.store.callbacks.park(eventId, new Date(this.#sender.now() + turn.delayMs));
  }

  /** Whether an event for this agent would reach anyone: a live session or a callback URL. */
  reachable(agent: AgentRecord): boolean {
    return this.#orders.reachable(agent);
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
      if (await this.#orders.enqueue(message)) this.#scheduled.delete(message.id);
    } catch (err) {
      this.#scheduled.delete(message.id);
      throw err;
    }
  }

  /** See {@link InboundDelivery.offlineLetter}. */
  offlineLetter(message: MessageRecord, agent: AgentRecord): SqlStatement | undefined {
    return this.#orders.offlineLetter(message, agent);
  }

  lettered(message: MessageRecord): void {
    this.#orders.lettered(message);
  }

  /**
   * Runs the chain once for a queued message (a `deliver` work item, run `attempt` of it): the live session,
   * else at most ONE callback post, when the kept event is due. A failed post throws `RetryLater` with
   * the schedule's next wait, for the work to come back then; the last attempt, a permanent refusal or
   * a disabled endpoint makes the dead letter. Nothing happens when the message was delivered or
   * dead-lettered already (the item ran before, on a node that died before acking); a stopping process
   * throws at once, so the work goes to another node (or, embedded, stays pending in the store for the next start).
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
    const kept = await this.store.callbacks.keep(event, message.id, new Date(this.#sender.now()));
    const turn = await this.#sender.turn(kept, target);
    if (turn.kind === 'later') return this.#comeBack(kept.eventId, turn);
    if (turn.kind === 'over') await this.#deadLetter(message, 'callback_failed', turn.attempts, turn.reason);
    else {
      await this.store.messages.markDelivered(message.id);
      this.#delivered(message, 'callback');
    }
  }

  /**
   * Notification (delivery receipts, call events): live session, else the event is kept for its
   * callback and posted now; a failed post comes back on the schedule as queued work (`notify`), and
   * is never dead-lettered (the state it reports is in the store and the inbox).
   */
  notify(agentId: string, event: AgentEvent, agent?: Callback): void {
    this.#track(this.#notifyNow(agentId, event, agent));
  }

  async #notifyNow(agentId: string, event: AgentEvent, agent?: Callback): Promise<void> {
    if (await this.#tryLive(agentId, event)) return;
    // The actor's current record, when given, saves a read.
    const target = agent ? this.#callbackFrom(agent) : await this.#callbackOf(agentId);
    if (!target) return;
    const kept = await this.store.callbacks.keep(event, null, new Date(this.#sender.now()));
    const turn = await this.#sender.turn(kept, target);
    if (turn.kind !== 'later' || this.#abort.signal.aborted) return this.#ended(agentId, event.id, turn);
    this.logger.debug({ agentId, reason: turn.reason }, 'callback attempt failed; queued for a retry');
    if (turn.delayMs > this.#parkAfterMs) return this.#comeBack(event.id, turn);
    const item: NotifyItem = { agentId, eventId: event.id };
    await this.queue.enqueue('notify', event.id, item);
  }

  /**
   * An operator's replay of one event or of the agent's events in a time range: each starts a new
   * round of the schedule, whatever became of it, and the agent's endpoint is enabled again. Returns
   * the ids of the events queued.
   */
  async replay(agentId: string, selection: ReplaySelection): Promise<string[]> {
    const events = await this.store.callbacks.replay(agentId, selection);
    for (const kept of events) {
      const item: NotifyItem = { agentId, eventId: kept.eventId };
      // A replay's item id is its own: a repeat of the event's earlier id may still be in the queue's duplicate window.
      await this.queue.enqueue('notify', `${kept.eventId}-r${kept.replays}`, item);
    }
    if (events.length > 0) this.logger.info({ agentId, events: events.length }, 'callbacks replayed by the operator');
    return events.map((e) => e.eventId);
  }

  /** One turn of a kept event (a `notify` item): it comes back with the schedule's next wait while attempts are left. */
  async #notifyTurn(payload: NotifyItem & { event?: AgentEvent }): Promise<void> {
    if (this.#abort.signal.aborted) throw new Error(`stopping: notification ${payload.eventId} goes to another node`);
    // An event the edge told (a gateway applied a receipt) comes whole, and is told as notify() tells one.
    const kept = await this.store.callbacks.event(payload.eventId ?? payload.event?.id);
    if (!kept && payload.event) return this.#notifyNow(payload.agentId, payload.event);
    if (!kept || kept.state !== 'pending') return;
    const target = await this.#callbackOf(kept.agentId);
    if (!target) {
      await this.store.callbacks.settle(kept.eventId, 'skipped');
      return;
    }
    const turn = await this.#sender.turn(kept, target);
    if (turn.kind === 'later') return this.#comeBack(kept.eventId, turn);
    this.#ended(kept.agentId, kept.eventId, turn);
  }

  #ended(agentId: string, eventId: string, turn: CallbackTurn): void {
    if (turn.kind === 'over') this.logger.debug({ agentId, eventId, attempts: turn.attempts, reason: turn.reason }, 'notification not delivered; dropped');
  }

  /**
   * Queues again every message still pending and every kept notification still pending (for example
   * after a crash); each comes back when its schedule says. Returns how many.
   */
  async recover(): Promise<number> {
    const pending = await this.store.messages.pendingDeliveries();
    for (const message of pending) await this.queue.enqueue('deliver', message.id, { messageId: message.id });
    const notifications = await this.store.callbacks.pendingNotifications();
    for (const kept of notifications) {
      const item: NotifyItem = { agentId: kept.agentId, eventId: kept.eventId };
      await this.queue.enqueue('notify', kept.replays > 0 ? `${kept.eventId}-r${kept.replays}` : kept.eventId, item);
    }
    return pending.length + notifications.length;
  }

  /** Stops retrying; an item in hand is handed back (another node takes it; embedded, it stays pending in the store for the next start). */
  async stop(): Promise<void> {
    clearInterval(this.#parkSweep);
    this.#abort.abort();
    await Promise.allSettled([...this.#inFlight, this.#unparking]);
    await Promise.all(this.#workers.splice(0).map((w) => w.stop()));
  }

  /** The live session takes the message (marked delivered), or the callback to post it to; without one it is dead-lettered. */
  async #liveOrCallback(message: MessageRecord, event: AgentEvent, agent?: Callback): Promise<CallbackTarget | undefined> {
    if (await this.#tryLive(message.agentId, event)) {
      await this.store.messages.markDelivered(message.id);
      this.#delivered(message, 'session');
      return undefined;
    }
    const target = agent ? this.#callbackFrom(agent) : await this.#callbackOf(message.agentId);
    if (!target) await this.#deadLetter(message, 'agent_offline', 0);
    return target;
  }

  /** Webhook to agent: from the message's store to its delivery (the metrics' event). */
  #delivered(message: MessageRecord, path: 'session' | 'callback'): void {
    this.events.emit('delivered', { path, seconds: Math.max(0, Date.now() - Date.parse(message.createdAt)) / 1000 });
  }

  async #tryLive(agentId: string, event: AgentEvent): Promise<boolean> {
    try {
      return await this.live.deliver(agentId, event);
    } catch (err) {
      this.logger.warn({ err, agentId }, 'live delivery failed; falling back');
      return false;
    }
  }

  async #callbackOf(agentId: string): Promise<CallbackTarget | undefined> {
    const agent = await this.store.agents.get(agentId);
    return agent && this.#callbackFrom(agent);
  }

  #callbackFrom(agent: Callback): CallbackTarget | undefined {
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
