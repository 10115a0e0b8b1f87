import { randomBytes } from 'node:crypto';
import type { Bus, Subscription } from '../bus/bus.js';
import { gatewayOfPresenceSubject, presenceSubject, presenceSyncSubject, presenceWildcard } from '../protocol/index.js';

/** What a gateway publishes on its presence subject: a change (numbered) or a beat carrying the last number. */
type PresenceNote = { seq: number; agentId: string; live: boolean } | { seq: number; beat: true };

/** A gateway's whole list, as it answers a sync. */
interface PresenceList {
  seq: number;
  agents: string[];
}

export interface PresenceTiming {
  /** How often a gateway beats (default 2 s). */
  beatMs?: number;
}

/**
 * Changes go out as they happen; a beat only says the gateway is there and which change was its last.
 * Every 2 s: a missed change is noticed within 2 s, and an idle cluster carries half the beats of 1 s.
 */
const DEFAULT_BEAT_MS = 2000;
/** A gateway not heard from for this many beats (10 s) is gone, and so are its sessions. */
const EXPIRY_BEATS = 5;
/** A node is sure of its view once it has listened this many beats (every live gateway beat in that time, one of them late). */
const SURE_AFTER_BEATS = 2.5;

/**
 * A gateway's side of presence: tells the runtime nodes which agents it holds live sessions of. Each
 * change is published, numbered, on the gateway's own subject after the `sb.live` subscription it
 * follows (so a node hears of a session before any message this gateway sends it next); a beat repeats
 * the last number, so that a node that missed a change asks for the whole list.
 */
export class PresenceAnnouncer {
  /** This gateway's name on the presence subjects: new at every start. */
  readonly id = randomBytes(6).toString('hex');
  #seq = 0;
  readonly #sync: Subscription;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly bus: Bus,
    /** The agents this gateway holds live sessions of, now. */
    held: () => Iterable<string>,
    { beatMs = DEFAULT_BEAT_MS }: PresenceTiming = {},
  ) {
    this.#sync = bus.subscribe(presenceSyncSubject(this.id), () => ({ seq: this.#seq, agents: [...held()] }) satisfies PresenceList);
    this.#timer = setInterval(() => this.#publish({ seq: this.#seq, beat: true }), beatMs);
    this.#timer.unref();
    this.#publish({ seq: this.#seq, beat: true });
  }

  /** A live session of the agent now exists here (`live`), or none does any more. */
  changed(agentId: string, live: boolean): void {
    this.#publish({ seq: ++this.#seq, agentId, live });
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#sync.unsubscribe();
  }

  #publish(note: PresenceNote): void {
    try {
      this.bus.publish(presenceSubject(this.id), note);
    } catch {
      // The bus is closed: this gateway is stopping, and the nodes forget it after a few beats.
    }
  }
}

/** One gateway as a node follows it: its list once fetched, and changes heard while fetching. */
interface FollowedGateway {
  heardAt: number;
  seq: number;
  /** Undefined until fetched (and while fetched again): the node is then unsure of this gateway. */
  agents: Set<string> | undefined;
  fetching: boolean;
  heldBack: { seq: number; agentId: string; live: boolean }[];
}

/**
 * A runtime node's view of presence: which agents some gateway holds live sessions of, from the
 * gateways' announcements. It errs one way only: `mayHold` is true whenever the view is not sure
 * (before it has listened for a few beats, after a reconnect, while a gateway's list is fetched, when
 * no gateway announces), and false only when every gateway it knows has told it of no session of the
 * agent. Gateways that do not announce (a version before presence) are invisible to it: in a rolling
 * upgrade, gateways go first.
 */
export class PresenceFollower {
  readonly #gateways = new Map<string, FollowedGateway>();
  readonly #subscription: Subscription;
  readonly #beatMs: number;
  #sureAfter: number;

  constructor(
    private readonly bus: Bus,
    { beatMs = DEFAULT_BEAT_MS }: PresenceTiming = {},
  ) {
    this.#beatMs = beatMs;
    this.#sureAfter = Date.now() + SURE_AFTER_BEATS * beatMs;
    this.#subscription = bus.subscribe(presenceWildcard(), (note, subject) => {
      this.#heard(gatewayOfPresenceSubject(subject), note as PresenceNote);
    });
  }

  /**
   * False only when no gateway holds a live session of the agent, as far as this view surely knows.
   * With no gateway announcing at all it is never sure: gateways of a version before presence, or
   * NATS permissions that refuse `sb.presence` (an older deploy/nats), announce nothing, and asking is
   * then the only way to know.
   */
  mayHold(agentId: string): boolean {
    const now = Date.now();
    if (now < this.#sureAfter) return true;
    for (const [id, gateway] of this.#gateways) {
      if (now - gateway.heardAt > EXPIRY_BEATS * this.#beatMs) this.#gateways.delete(id);
      else if (gateway.agents === undefined || gateway.agents.has(agentId)) return true;
    }
    return this.#gateways.size === 0;
  }

  /** Announcements may have been lost (the connection dropped): unsure until every gateway is heard and fetched again. */
  resync(): void {
    this.#sureAfter = Date.now() + SURE_AFTER_BEATS * this.#beatMs;
    this.#gateways.clear();
  }

  stop(): void {
    this.#subscription.unsubscribe();
  }

  #heard(id: string, note: PresenceNote): void {
    let gateway = this.#gateways.get(id);
    if (!gateway) {
      gateway = { heardAt: Date.now(), seq: -1, agents: undefined, fetching: false, heldBack: [] };
      this.#gateways.set(id, gateway);
    }
    gateway.heardAt = Date.now();
    if (gateway.agents === undefined) {
      if ('agentId' in note) gateway.heldBack.push(note);
      if (!gateway.fetching) this.#fetch(id, gateway);
      return;
    }
    // A beat with another number than the last change heard, or a change out of turn: one was missed.
    if ('beat' in note ? note.seq !== gateway.seq : note.seq !== gateway.seq + 1) return this.#fetch(id, gateway);
    if ('agentId' in note) this.#apply(gateway, note);
  }

  #apply(gateway: FollowedGateway, note: { seq: number; agentId: string; live: boolean }): void {
    gateway.seq = note.seq;
    if (note.live) gateway.agents!.add(note.agentId);
    else gateway.agents!.delete(note.agentId);
  }

  #fetch(id: string, gateway: FollowedGateway): void {
    gateway.agents = undefined;
    gateway.fetching = true;
    this.bus.request<PresenceList>(presenceSyncSubject(id), {}, { timeoutMs: 4 * this.#beatMs }).then(
      (list) => {
        gateway.fetching = false;
        if (this.#gateways.get(id) !== gateway) return;
        gateway.agents = new Set(list.agents);
        gateway.seq = list.seq;
        // Changes heard while the list was on its way (they may arrive before its answer), in turn.
        for (const note of gateway.heldBack.splice(0)) {
          if (note.seq <= gateway.seq) continue;
          if (note.seq !== gateway.seq + 1) return this.#fetch(id, gateway);
          this.#apply(gateway, note);
        }
      },
      // Unanswered: unsure of this gateway until it beats again (or is forgotten).
      () => {
        gateway.fetching = false;
        gateway.heldBack.length = 0;
      },
    );
  }
}
