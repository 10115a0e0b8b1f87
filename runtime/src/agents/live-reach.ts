import { ErrorCodes, hasErrorCode, SwitchboardError } from '@switchboard/sdk';
import type { Bus, Subscription } from '../bus/bus.js';
import type { NatsBus } from '../bus/nats-bus.js';
import { agentOfInboxSubject, inboxSubject, inboxWildcard, liveSubject, turnSubject } from '../protocol/index.js';
import type { AgentEvent, TurnCall } from '../protocol/live.js';
import { PresenceAnnouncer, PresenceFollower, type PresenceTiming } from './live-presence.js';

export type { TurnCall } from '../protocol/live.js';

/** The live agent sessions one gateway holds (MCP), as the runtime reaches agents through them. */
export interface LocalSessions {
  /** Hands an event to the agent's live session here; false when there is none or it cannot take it. */
  deliver(agentId: string, event: AgentEvent): Promise<boolean>;
  /** True when a live session of the agent is held here. */
  holds(agentId: string): boolean;
  /** Asks the agent's session here for a call's next turn (MCP sampling); undefined when none here can. */
  sample(call: TurnCall, timeoutMs: number): Promise<string> | undefined;
  /** True when a session of the agent that can answer turns is held here. */
  samples(agentId: string): boolean;
}

/**
 * The live reach of agents: how deliveries and voice turns get to an agent's live session wherever a
 * gateway holds it. DeliveryService and AgentTurns reach through it; the gateway serves its own
 * sessions into it. In process ({@link LocalLiveReach}) or over NATS ({@link NatsLiveReach}).
 */
export interface LiveReach {
  /** Hands an event to the agent's live session; false when there is none or it could not take it. */
  deliver(agentId: string, event: AgentEvent): Promise<boolean>;
  /** Whether an event for the agent may reach a live session (true when only asking would tell). */
  holds(agentId: string): boolean;
  /** Asks a live session for a call's next turn; undefined (or '') when no session answers turns. */
  sample(call: TurnCall, timeoutMs: number): Promise<string> | undefined;
  /** Whether a session of the agent that answers turns exists. */
  samples(agentId: string): Promise<boolean>;
  /**
   * Makes `local` the sessions this process holds; the returned function is called whenever the
   * sessions it holds of an agent change (opened or closed).
   */
  serve(local: LocalSessions): (agentId: string) => void;
  /**
   * Announces that an entry was appended to the agent's inbox (call after its commit). A hint: the
   * store is the truth, an extra announcement costs a read, a lost one delays the agent to its next read.
   */
  inboxChanged(agentId: string): void;
  /** Hears every agent's inbox announcements, wherever they are made; returns the unsubscribe. */
  followInboxes(listener: (agentId: string) => void): () => void;
}

/** Calls each listener, one failing not stopping the others. */
function tell(listeners: ReadonlySet<(agentId: string) => void>, agentId: string): void {
  for (const listener of listeners) {
    try {
      listener(agentId);
    } catch {
      // A listener's failure is its own; the hint still reaches the rest.
    }
  }
}

/** No sessions: what a process reaches before a gateway serves its own. */
const NO_SESSIONS: LocalSessions = {
  deliver: async () => false,
  holds: () => false,
  sample: () => undefined,
  samples: () => false,
};

/** Embedded: the agents' sessions are this process's own. */
export class LocalLiveReach implements LiveReach {
  #local: LocalSessions = NO_SESSIONS;
  readonly #inboxListeners = new Set<(agentId: string) => void>();

  deliver(agentId: string, event: AgentEvent): Promise<boolean> {
    return this.#local.deliver(agentId, event);
  }

  holds(agentId: string): boolean {
    return this.#local.holds(agentId);
  }

  sample(call: TurnCall, timeoutMs: number): Promise<string> | undefined {
    return this.#local.sample(call, timeoutMs);
  }

  async samples(agentId: string): Promise<boolean> {
    return this.#local.samples(agentId);
  }

  serve(local: LocalSessions): (agentId: string) => void {
    this.#local = local;
    return () => undefined;
  }

  inboxChanged(agentId: string): void {
    tell(this.#inboxListeners, agentId);
  }

  followInboxes(listener: (agentId: string) => void): () => void {
    // A fresh function per follow, so one listener followed twice is unsubscribed once each.
    const entry = (agentId: string) => listener(agentId);
    this.#inboxListeners.add(entry);
    return () => void this.#inboxListeners.delete(entry);
  }
}

/**
 * Cluster: a gateway answers on the live and turn subjects of each agent it holds a session for (one
 * gateway of the queue group answers; no responders means no session anywhere). Sessions held here
 * are reached directly; any other is asked for over the bus, so a runtime node delivers through
 * whichever gateway holds the session, and a call held by one gateway asks its turns of the gateway
 * holding the agent's session. A gateway announces the agents it holds live sessions of; a runtime
 * node that follows the announcements ({@link followPresence}) asks only when some gateway may hold one.
 * Inbox announcements go to `sb.inbox.<agentId>` without a queue group: every gateway hears each one.
 */
export class NatsLiveReach implements LiveReach {
  #local: LocalSessions = NO_SESSIONS;
  readonly #live = new Map<string, Subscription>();
  readonly #turns = new Map<string, Subscription>();
  #announcer: PresenceAnnouncer | undefined;
  #presence: PresenceFollower | undefined;
  readonly #inboxListeners = new Set<(agentId: string) => void>();
  #inboxes: Subscription | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly deliverTimeoutMs = 5000,
    private readonly presenceTiming: PresenceTiming = {},
  ) {}

  /**
   * Follows the gateways' announcements of live sessions (a runtime node), so that {@link holds} and
   * {@link deliver} no longer ask over the bus for an agent no gateway holds a session of. Call
   * `resync` on the returned view when announcements may have been lost (a reconnect).
   */
  followPresence(): PresenceFollower {
    this.#presence ??= new PresenceFollower(this.bus, this.presenceTiming);
    return this.#presence;
  }

  async deliver(agentId: string, event: AgentEvent): Promise<boolean> {
    if (this.#local.holds(agentId)) return this.#local.deliver(agentId, event);
    if (this.#presence && !this.#presence.mayHold(agentId)) return false;
    return this.bus.request<boolean>(liveSubject(agentId), event, { timeoutMs: this.deliverTimeoutMs }).then(
      (taken) => taken === true,
      () => false,
    );
  }

  /** Without presence, which gateway holds a session is known only by asking, so a delivery always asks. */
  holds(agentId: string): boolean {
    return this.#local.holds(agentId) || (this.#presence?.mayHold(agentId) ?? true);
  }

  sample(call: TurnCall, timeoutMs: number): Promise<string> {
    const here = this.#local.sample(call, timeoutMs);
    if (here) return here;
    const request: TurnRequest = { call: turnCall(call), timeoutMs };
    // No session anywhere is no answer (the callback URL is next), not a failure to log.
    return this.bus
      .request<string>(turnSubject(call.agentId), request, { timeoutMs: timeoutMs + 1000 })
      .catch((err: unknown) => (hasErrorCode(err, ErrorCodes.UNAVAILABLE) ? '' : Promise.reject(err)));
  }

  async samples(agentId: string): Promise<boolean> {
    if (this.#local.samples(agentId)) return true;
    return this.bus.request<boolean>(turnSubject(agentId), { probe: true } satisfies TurnRequest, { timeoutMs: 2000 }).then(
      (answer) => answer === true,
      () => false,
    );
  }

  serve(local: LocalSessions): (agentId: string) => void {
    this.#local = local;
    const answerTurn = (agentId: string) => (data: unknown) => {
      const request = data as TurnRequest;
      if ('probe' in request) return local.samples(agentId);
      const answer = local.sample(request.call, request.timeoutMs);
      if (!answer) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `No session that answers turns for agent ${agentId} here.`);
      return answer;
    };
    this.#announcer ??= new PresenceAnnouncer(this.bus, () => this.#live.keys(), this.presenceTiming);
    const announcer = this.#announcer;
    return (agentId) => {
      const live = this.#live.has(agentId);
      reconcile(this.#live, local.holds(agentId), agentId, () =>
        this.bus.subscribe(liveSubject(agentId), (event) => local.deliver(agentId, event as AgentEvent), { queue: 'live' }),
      );
      // After the subscription, so that a node that hears of the session finds it listening.
      if (this.#live.has(agentId) !== live) announcer.changed(agentId, !live);
      reconcile(this.#turns, local.samples(agentId), agentId, () => this.bus.subscribe(turnSubject(agentId), answerTurn(agentId), { queue: 'turn' }));
    };
  }

  inboxChanged(agentId: string): void {
    try {
      this.bus.publish(inboxSubject(agentId), {});
    } catch {
      // The bus is closing or away: the hint is lost, and the agent reads at its next read.
    }
  }

  /** One subscription to every agent's subject while anyone follows; none otherwise. */
  followInboxes(listener: (agentId: string) => void): () => void {
    const entry = (agentId: string) => listener(agentId);
    this.#inboxListeners.add(entry);
    this.#inboxes ??= this.bus.subscribe(inboxWildcard(), (_data, subject) => tell(this.#inboxListeners, agentOfInboxSubject(subject)));
    return () => {
      if (!this.#inboxListeners.delete(entry) || this.#inboxListeners.size > 0) return;
      this.#inboxes?.unsubscribe();
      this.#inboxes = undefined;
    };
  }
}

/** A turn asked of another gateway: the call so far, or a probe (does a session that answers turns exist?). */
type TurnRequest = { probe: true } | { call: TurnCall; timeoutMs: number };

/** Subscribes while `wanted`, unsubscribes once not. */
function reconcile(held: Map<string, Subscription>, wanted: boolean, agentId: string, subscribe: () => Subscription): void {
  const subscription = held.get(agentId);
  if (wanted && !subscription) held.set(agentId, subscribe());
  else if (!wanted && subscription) {
    subscription.unsubscribe();
    held.delete(agentId);
  }
}

function turnCall({ agentId, sessionId, callSid, direction, from, to, systemPrompt, transcript }: TurnCall): TurnCall {
  return { agentId, sessionId, callSid, direction, from, to, systemPrompt, transcript };
}

/** Follows the gateways' presence; announcements missed while the connection was down make the view unsure until they are heard again. */
export function followPresence(reach: NatsLiveReach, bus: NatsBus): void {
  const presence = reach.followPresence();
  void (async () => {
    for await (const status of bus.connection.status()) if (status.type === 'disconnect' || status.type === 'reconnect') presence.resync();
  })().catch(() => undefined);
}
