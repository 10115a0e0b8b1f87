import type { Logger, Principal } from '@switchboard/runtime';
import { McpSession, type McpSessionInit, type McpTransportKind } from './mcp-session.js';

/** Session events: `open` when a session goes live, `close` when a live session ends. */
export type McpSessionEvent = 'open' | 'close';
export type McpSessionListener = (session: McpSession) => void;

/** How many sessions a principal may hold, and when an idle one expires. */
export interface McpSessionLimits {
  /** Sessions one principal may hold on this gateway; a new one beyond it evicts the longest idle. */
  readonly maxPerPrincipal: number;
  /** An idle session (see McpSession.idle) with no request for this long is closed; 0 never. */
  readonly idleMs: number;
}

/** What the gauges report: open server→client streams, and sessions held by transport. */
export interface McpCensus {
  readonly streams: number;
  readonly sessions: Record<McpTransportKind, number>;
}

/**
 * What a principal holds on this gateway and what counts against its cap: sessions, and the
 * 2026-07-28 `subscriptions/listen` streams (never idle: a stream is a connected listener).
 */
interface Held {
  readonly id: string;
  readonly agentId: string | undefined;
  readonly principal: Principal;
  readonly idle: boolean;
  readonly lastActiveAt: number;
  retire(): Promise<void>;
}

/** A `subscriptions/listen` stream held for its principal until it ends. */
class ListenStream implements Held {
  readonly idle = false;
  readonly lastActiveAt = performance.now();

  constructor(
    readonly id: string,
    readonly principal: Principal,
    readonly agentId: string | undefined,
    private readonly end: () => void,
  ) {}

  async retire(): Promise<void> {
    this.end();
  }
}

/** Idle sessions go first; then, and within each group, the one with the oldest request. */
const byEviction = (a: Held, b: Held) => Number(b.idle) - Number(a.idle) || a.lastActiveAt - b.lastActiveAt;

/** One key per principal: a client token stands for its agent; there is one team and one orchestrator token. */
const principalKey = (principal: Principal) => (principal.kind === 'client' ? `client:${principal.agentId}` : principal.kind);

/**
 * The gateway's MCP sessions, by id, by agent and by principal. A live session with an agent receives
 * that agent's deliveries and voice turns; a newer live session for the same agent replaces (closes)
 * the older, and the older one's close never unregisters the newer. A principal holds at most
 * `maxPerPrincipal` sessions and 2026-07-28 listen streams: a new one beyond that closes the longest
 * idle of them, so its client's next request finds no session (404) and initializes again (a listen
 * stream just ends). Idle sessions expire after `idleMs`.
 */
export class McpSessions {
  readonly #byId = new Map<string, McpSession>();
  readonly #byAgent = new Map<string, McpSession>();
  readonly #byPrincipal = new Map<string, Set<Held>>();
  readonly #streams = new Set<ListenStream>();
  readonly #closingHooks: (() => Promise<void>)[] = [];
  #streamIds = 0;
  readonly #live = new Set<McpSession>();
  readonly #listeners: Record<McpSessionEvent, Set<McpSessionListener>> = { open: new Set(), close: new Set() };
  readonly #limits: McpSessionLimits;
  #sweeper: NodeJS.Timeout | undefined;
  #closing = false;

  constructor(
    private readonly logger: Logger,
    limits: McpSessionLimits,
  ) {
    this.#limits = limits;
  }

  /** Live sessions (initialized, with a stream to the client). */
  get count(): number {
    return this.#live.size;
  }

  /** False once closeAll has begun: new sessions are refused. */
  get accepting(): boolean {
    return !this.#closing;
  }

  /** Any session with this id, live or still initializing. */
  get(id: string): McpSession | undefined {
    return this.#byId.get(id);
  }

  /** The live session that receives this agent's deliveries, if any. */
  sessionFor(agentId: string): McpSession | undefined {
    const session = this.#byAgent.get(agentId);
    return session?.live ? session : undefined;
  }

  /** Every live session. */
  list(): McpSession[] {
    return [...this.#live];
  }

  /** Open server→client streams (legacy /sse streams, Streamable HTTP GET streams) and sessions held, by transport. */
  census(): McpCensus {
    const census = { streams: 0, sessions: { sse: 0, 'streamable-http': 0 } };
    for (const session of this.#byId.values()) {
      census.sessions[session.kind] += 1;
      if (session.connected) census.streams += 1;
    }
    census.streams += this.#streams.size;
    return census;
  }

  /** Subscribes to `open` (a session went live) or `close` (a live session ended); returns the unsubscribe. */
  on(event: McpSessionEvent, listener: McpSessionListener): () => void {
    this.#listeners[event].add(listener);
    return () => this.#listeners[event].delete(listener);
  }

  /** Registers a new session and connects its server to its transport. */
  async open(init: McpSessionInit): Promise<McpSession> {
    const session = new McpSession(init, {
      live: (s) => this.#wentLive(s),
      closed: (s) => this.#closed(s),
    });
    this.#makeRoomFor(session.principal);
    this.#hold(session);
    try {
      await session.connect();
    } catch (err) {
      this.#release(session);
      await session.close();
      throw err;
    }
    return session;
  }

  /**
   * Counts a `subscriptions/listen` stream against its principal's cap (evicting as a new session
   * would); `end` ends the stream when it is evicted or, if still open after the closing hooks, on
   * closeAll. Call the returned function once the stream has ended.
   */
  holdStream(principal: Principal, agentId: string | undefined, end: () => void): () => void {
    const stream = new ListenStream(`listen-${++this.#streamIds}`, principal, agentId, end);
    this.#makeRoomFor(principal);
    this.#streams.add(stream);
    this.#addHeld(stream);
    return () => {
      this.#streams.delete(stream);
      this.#release(stream);
    };
  }

  /** Runs `hook` first in closeAll (the listen handler's own close, which ends its streams gracefully). */
  onClosing(hook: () => Promise<void>): void {
    this.#closingHooks.push(hook);
  }

  /** Closes every session and listen stream cleanly (clients see their streams end) and refuses new ones. */
  async closeAll(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    await Promise.all(this.#closingHooks.map((hook) => hook().catch(() => undefined)));
    for (const stream of this.#streams) void stream.retire();
    await Promise.all([...this.#byId.values()].map((session) => session.close()));
    // Stream bridges end their responses in the microtasks after the SDK closes its streams.
    await new Promise((resolve) => setImmediate(resolve));
  }

  #hold(session: McpSession): void {
    this.#byId.set(session.id, session);
    this.#addHeld(session);
    this.#sweepIdle();
  }

  #addHeld(item: Held): void {
    const key = principalKey(item.principal);
    let held = this.#byPrincipal.get(key);
    if (!held) this.#byPrincipal.set(key, (held = new Set()));
    held.add(item);
  }

  /** Forgets a session (or stream) at once, so a request for its id finds nothing while it closes. */
  #release(session: Held): void {
    if (this.#byId.get(session.id) === session) this.#byId.delete(session.id);
    const key = principalKey(session.principal);
    const held = this.#byPrincipal.get(key);
    if (held?.delete(session) && held.size === 0) this.#byPrincipal.delete(key);
  }

  /** Evicts the principal's longest idle sessions until one more fits. */
  #makeRoomFor(principal: Principal): void {
    const held = this.#byPrincipal.get(principalKey(principal));
    const excess = (held?.size ?? 0) - this.#limits.maxPerPrincipal + 1;
    if (!held || excess <= 0) return;
    for (const oldest of [...held].sort(byEviction).slice(0, excess)) {
      this.logger.info(
        { sessionId: oldest.id, agentId: oldest.agentId, principal: principal.kind, idle: oldest.idle, max: this.#limits.maxPerPrincipal },
        oldest instanceof ListenStream ? 'mcp listen stream evicted: its principal opened one more than it may hold' : 'mcp session evicted: its principal opened one more than it may hold',
      );
      this.#release(oldest);
      void oldest.retire();
    }
  }

  /** Starts the timer that closes expired idle sessions: it runs a few times per idle period. */
  #sweepIdle(): void {
    const { idleMs } = this.#limits;
    if (this.#sweeper || idleMs <= 0) return;
    this.#sweeper = setInterval(() => this.#expireIdle(), Math.min(Math.max(idleMs / 4, 10), 30_000));
    this.#sweeper.unref();
  }

  #expireIdle(): void {
    const since = performance.now() - this.#limits.idleMs;
    for (const session of this.#byId.values()) {
      if (!session.idle || session.lastActiveAt > since) continue;
      this.logger.info({ sessionId: session.id, agentId: session.agentId, idleMs: this.#limits.idleMs }, 'mcp session expired: idle for the idle time');
      this.#release(session);
      void session.retire();
    }
  }

  #wentLive(session: McpSession): void {
    this.#live.add(session);
    const { agentId } = session;
    const older = agentId === undefined ? undefined : this.#byAgent.get(agentId);
    if (agentId !== undefined) this.#byAgent.set(agentId, session);
    this.#emit('open', session);
    if (older && older !== session) {
      this.logger.info({ agentId, replaced: older.id, by: session.id }, 'mcp session replaced by a newer one for the same agent');
      void older.close();
    }
  }

  #closed(session: McpSession): void {
    this.#release(session);
    if (session.agentId !== undefined && this.#byAgent.get(session.agentId) === session) this.#byAgent.delete(session.agentId);
    if (this.#live.delete(session)) this.#emit('close', session);
  }

  #emit(event: McpSessionEvent, session: McpSession): void {
    for (const listener of this.#listeners[event]) {
      try {
        listener(session);
      } catch (err) {
        this.logger.error({ err, event, sessionId: session.id }, 'mcp session listener failed');
      }
    }
  }
}
