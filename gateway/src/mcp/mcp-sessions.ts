import type { Logger } from '@switchboard/runtime';
import { McpSession, type McpSessionInit } from './mcp-session.js';

/** Session events: `open` when a session goes live, `close` when a live session ends. */
export type McpSessionEvent = 'open' | 'close';
export type McpSessionListener = (session: McpSession) => void;

/**
 * The gateway's MCP sessions, by id and by agent. A live session with an agent receives that
 * agent's deliveries and voice turns; a newer live session for the same agent replaces (closes) the
 * older, and the older one's close never unregisters the newer.
 */
export class McpSessions {
  readonly #byId = new Map<string, McpSession>();
  readonly #byAgent = new Map<string, McpSession>();
  readonly #live = new Set<McpSession>();
  readonly #listeners: Record<McpSessionEvent, Set<McpSessionListener>> = { open: new Set(), close: new Set() };
  #closing = false;

  constructor(private readonly logger: Logger) {}

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
    this.#byId.set(session.id, session);
    try {
      await session.connect();
    } catch (err) {
      this.#byId.delete(session.id);
      await session.close();
      throw err;
    }
    return session;
  }

  /** Closes every session cleanly (clients see their streams end) and refuses new ones. */
  async closeAll(): Promise<void> {
    this.#closing = true;
    await Promise.all([...this.#byId.values()].map((session) => session.close()));
    // Stream bridges end their responses in the microtasks after the SDK closes its streams.
    await new Promise((resolve) => setImmediate(resolve));
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
    if (this.#byId.get(session.id) === session) this.#byId.delete(session.id);
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
