import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type ClientCapabilities,
  type CreateMessageRequestParamsBase,
  type CreateMessageResult,
  type JSONRPCMessage,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@switchboard/runtime';

/** Which MCP transport a session runs on. */
export type McpTransportKind = 'sse' | 'streamable-http';

/** A transport a session can run on: the SDK's interface plus whether the client can hear the server now. */
export interface SessionTransport extends Transport {
  /** True while a server→client stream is open. */
  readonly connected: boolean;
  /** Called when a server→client stream opens. */
  onconnected?: () => void;
  /** Asks the client not to reconnect by itself, before the session closes for a limit. */
  discourageReconnect?(): void;
}

export interface McpSessionInit {
  readonly id: string;
  readonly kind: McpTransportKind;
  readonly principal: Principal;
  readonly agentId: string | undefined;
  readonly server: Server;
  readonly transport: SessionTransport;
}

/** What the registry hears from a session. */
export interface McpSessionEvents {
  /** The session finished initializing and the client can hear the server. Fires at most once. */
  live(session: McpSession): void;
  closed(session: McpSession): void;
}

/**
 * One MCP session: a client, the principal it authenticated as, the agent it acts for, and the
 * SDK server instance bound to its transport. It goes live once the client has initialized and
 * can hear the server; only then does it receive deliveries for its agent.
 */
export class McpSession {
  readonly id: string;
  readonly kind: McpTransportKind;
  readonly principal: Principal;
  readonly agentId: string | undefined;
  /** The SDK server bound to this session (one per session: the SDK binds one transport per server). */
  readonly server: Server;
  readonly openedAt = new Date();
  /** The transport the server is bound to (for the routes that feed it). */
  readonly transport: SessionTransport;
  readonly #events: McpSessionEvents;
  #lastActiveAt = performance.now();
  #requests = 0;
  #initialized = false;
  #live = false;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(init: McpSessionInit, events: McpSessionEvents) {
    this.id = init.id;
    this.kind = init.kind;
    this.principal = init.principal;
    this.agentId = init.agentId;
    this.server = init.server;
    this.transport = init.transport;
    this.#events = events;
  }

  /** True once initialized with a stream to the client, until closed. */
  get live(): boolean {
    return this.#live && !this.#closed;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** True while a server→client stream is open (a Streamable HTTP client may drop and reopen it). */
  get connected(): boolean {
    return !this.#closed && this.transport.connected;
  }

  /**
   * True when nothing holds the session: no request in flight, and not a connected listener (an
   * initialized client with its stream open). Idle sessions are the first evicted and the ones that expire.
   */
  get idle(): boolean {
    return this.#requests === 0 && !(this.#initialized && this.connected);
  }

  /** When the client last sent a request or had one answered (performance.now() milliseconds). */
  get lastActiveAt(): number {
    return this.#lastActiveAt;
  }

  /** Records a client request on this session; call the returned function once it has been answered. */
  request(): () => void {
    this.#requests += 1;
    this.#lastActiveAt = performance.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#requests -= 1;
      this.#lastActiveAt = performance.now();
    };
  }

  /** What the client declared in `initialize`. */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.server.getClientCapabilities();
  }

  /** Whether the client declared the `sampling` capability (needed for `createMessage`). */
  get supportsSampling(): boolean {
    return this.clientCapabilities?.sampling !== undefined;
  }

  /**
   * Sends a server notification, such as `notifications/message`. Resolves once it has been
   * written towards the client; rejects when it could not be (no stream, client too slow, closed),
   * so the caller can deliver it another way.
   */
  async notify(notification: ServerNotification): Promise<void> {
    if (this.#closed) throw new Error('The MCP session is closed.');
    await this.server.notification(notification);
  }

  /** Asks the client's model for a reply (`sampling/createMessage`); needs `supportsSampling`. */
  createMessage(params: CreateMessageRequestParamsBase, options?: RequestOptions): Promise<CreateMessageResult> {
    if (this.#closed) return Promise.reject(new Error('The MCP session is closed.'));
    return this.server.createMessage(params, options);
  }

  /** Ends the session and its streams cleanly. */
  close(): Promise<void> {
    this.#closing ??= this.server.close().catch(() => undefined);
    return this.#closing;
  }

  /** Closes the session for a limit (evicted, expired): its client is asked not to reconnect by itself. */
  retire(): Promise<void> {
    if (!this.#closed) this.transport.discourageReconnect?.();
    return this.close();
  }

  /** Binds the server to the transport and starts it (for SSE, that sends the endpoint event). */
  async connect(): Promise<void> {
    const transport = this.transport;
    // Set before connect: the SDK keeps and calls callbacks that are already there.
    transport.onmessage = (message) => this.#observe(message);
    transport.onclose = () => this.#ended();
    transport.onconnected = () => this.#goLiveWhenReady();
    const previous = this.server.oninitialized;
    this.server.oninitialized = () => {
      previous?.();
      this.#initialized = true;
      this.#goLiveWhenReady();
    };
    await this.server.connect(transport);
  }

  /**
   * A client message other than `initialize` or `ping` means the client considers the session
   * initialized. That also covers an SSE client whose EventSource reconnected after a dropped
   * stream: it goes on using the new session without initializing it again.
   */
  #observe(message: JSONRPCMessage): void {
    if (this.#initialized) return;
    const method = isJSONRPCRequest(message) || isJSONRPCNotification(message) ? message.method : undefined;
    if (method === 'initialize' || method === 'ping') return;
    this.#initialized = true;
    // Let the SDK handle the message first (it may be the `initialized` notification).
    queueMicrotask(() => this.#goLiveWhenReady());
  }

  #goLiveWhenReady(): void {
    if (this.#live || this.#closed || !this.#initialized || !this.transport.connected) return;
    this.#live = true;
    this.#events.live(this);
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#events.closed(this);
  }
}
