import {
  WebStandardStreamableHTTPServerTransport,
  type HandleRequestOptions,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCErrorResponse, isJSONRPCResultResponse, type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Exchange } from '../http/exchange.js';

export interface StreamableSessionTransportOptions {
  readonly sessionId: string;
  /** Interval of keep-alive comments on the SDK's event streams; 0 turns them off. */
  readonly keepAliveMs: number;
  readonly bodyLimit: number;
}

/**
 * One Streamable HTTP session: the SDK's Web-standard transport does the protocol; this adds what a
 * delivery chain needs. The SDK drops a server message silently when the client has no GET stream
 * open; here `send` rejects instead, and resolves only once the message has left user space on
 * the response that carries the stream.
 */
export class StreamableSessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Called each time the client opens its GET stream. */
  onconnected?: () => void;
  readonly #sdk: WebStandardStreamableHTTPServerTransport;
  #standalone: Exchange | undefined;

  constructor(options: StreamableSessionTransportOptions) {
    this.#sdk = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => options.sessionId,
      keepAliveMs: options.keepAliveMs,
      maxRequestBodySize: options.bodyLimit,
    });
    this.#sdk.onmessage = (message, extra) => this.onmessage?.(message, extra);
    this.#sdk.onerror = (error) => this.onerror?.(error);
    this.#sdk.onclose = () => this.onclose?.();
  }

  /** Set once the client's initialize request was accepted. */
  get sessionId(): string | undefined {
    return this.#sdk.sessionId;
  }

  /** True while the client's GET stream (the one for server-initiated messages) is open. */
  get connected(): boolean {
    return this.#standalone?.streaming ?? false;
  }

  handleRequest(request: Request, options?: HandleRequestOptions): Promise<Response> {
    return this.#sdk.handleRequest(request, options);
  }

  /** Records the response now carrying the GET stream, until it ends. */
  attachStandaloneStream(exchange: Exchange): void {
    this.#standalone = exchange;
    exchange.onEnd(() => {
      if (this.#standalone === exchange) this.#standalone = undefined;
    });
    if (exchange.streaming) this.onconnected?.();
  }

  start(): Promise<void> {
    return this.#sdk.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    if (isResponse || options?.relatedRequestId !== undefined) {
      await this.#sdk.send(message, options);
      return;
    }
    const stream = this.#standalone;
    if (!stream?.streaming) throw new Error('The client has no open stream for server messages (no GET /mcp stream).');
    await this.#sdk.send(message, options);
    // The SDK has queued the event on its ReadableStream; the bridge moves queued chunks to the socket in
    // microtasks, so after one macrotask turn they are all written and flushed() covers them.
    await new Promise((resolve) => setImmediate(resolve));
    await stream.flushed();
  }

  close(): Promise<void> {
    return this.#sdk.close();
  }
}
