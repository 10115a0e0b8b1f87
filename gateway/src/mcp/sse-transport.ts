import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Exchange } from '../http/exchange.js';
import { everyInterval } from './keep-alive-wheel.js';

/** Response headers of every MCP event stream. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** Reconnection delay sent to a client whose stream closes for a limit: a day (setTimeout's limit is ~24.8 days). */
const RETIRED_RETRY_MS = 86_400_000;

export interface SseServerTransportOptions {
  readonly sessionId: string;
  /** Path the client POSTs its messages to; `?sessionId=<id>` is appended. */
  readonly endpoint: string;
  /** Interval of `: keep-alive` comment lines; 0 turns them off. */
  readonly keepAliveMs: number;
  /** Extra response headers (security headers). */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The server side of MCP's HTTP+SSE transport on one HTTP response: the `endpoint` event first,
 * then one `message` event per JSON-RPC message. `send` resolves once the event has left user
 * space and rejects when it could not be written, so an undelivered message is never lost silently.
 * Client messages arrive through `receive`, called by the POST /messages route.
 */
export class SseServerTransport implements Transport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Never called again after start: the one stream is the whole connection. */
  onconnected?: () => void;
  readonly #exchange: Exchange;
  readonly #options: SseServerTransportOptions;
  #started = false;
  #closed = false;
  #stopKeepAlive: (() => void) | undefined;

  constructor(exchange: Exchange, options: SseServerTransportOptions) {
    this.#exchange = exchange;
    this.#options = options;
    this.sessionId = options.sessionId;
    exchange.onEnd(() => this.#streamEnded());
  }

  /** True while the event stream to the client is open. */
  get connected(): boolean {
    return this.#exchange.streaming;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('SseServerTransport is already started.');
    this.#started = true;
    const endpoint = `${this.#options.endpoint}?sessionId=${encodeURIComponent(this.sessionId)}`;
    const headers = { ...this.#options.headers, ...EVENT_STREAM_HEADERS };
    if (!this.#exchange.open(200, headers, `event: endpoint\ndata: ${endpoint}\n\n`)) {
      throw new Error('The client went away before its event stream opened.');
    }
    const { keepAliveMs } = this.#options;
    // In a random slot of a timer shared by every stream (see keep-alive-wheel.ts).
    if (keepAliveMs > 0) this.#stopKeepAlive = everyInterval(keepAliveMs, () => this.#keepAliveTick());
    this.onconnected?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // JSON.stringify never emits a raw line break, so one data line carries the whole message.
    return this.#exchange.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** A message the client POSTed for this session. */
  receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
  }

  /**
   * Tells the client's EventSource to wait a day before reconnecting by itself: a stream closed for a
   * limit would otherwise come back within seconds as a new session and evict another. The MCP SDK's
   * client drops Last-Event-ID, so a reconnect cannot be told from a new client.
   */
  discourageReconnect(): void {
    void this.#exchange.write(`retry: ${RETIRED_RETRY_MS}\n\n`).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#exchange.end();
    this.#streamEnded();
  }

  #keepAliveTick(): void {
    void this.#exchange.write(': keep-alive\n\n').catch(() => undefined);
  }

  #streamEnded(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopKeepAlive?.();
    this.onclose?.();
  }
}
