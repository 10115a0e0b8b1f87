import type { Exchange } from './exchange.js';

/** A route that works on the exchange itself (streams, reads its own body) rather than returning a result. */
export type ExchangeHandler = (exchange: Exchange) => void;

/** The upgrade request of a WebSocket route, copied: path parameters by name, raw query, lower-case headers. */
export interface WebSocketUpgrade {
  readonly params: Readonly<Record<string, string>>;
  readonly queryString: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** One accepted WebSocket as a route sees it. */
export interface ServerWebSocket<Data> {
  /** What `upgrade` resolved with. */
  readonly data: Data;
  /** False once the socket is closing or closed. */
  readonly open: boolean;
  /** Sends a text frame; dropped when the socket is closed or holds more than `maxBackpressure` bytes. */
  send(text: string): void;
  /** Closes the socket with a close frame. */
  end(code?: number): void;
}

/** A WebSocket route; `upgrade` decides (a rejection is answered as the contract's error body). */
export interface WebSocketRoute<Data> {
  readonly maxPayloadLength: number;
  /** A socket silent for this long (pings unanswered) is closed. */
  readonly idleTimeoutSeconds: number;
  /** Bytes a socket may hold for a slow peer before further sends are dropped. */
  readonly maxBackpressure: number;
  upgrade(request: WebSocketUpgrade): Promise<Data>;
  open?(socket: ServerWebSocket<Data>): void;
  /** A frame; `data` is a copy the route may keep. */
  message(socket: ServerWebSocket<Data>, data: Buffer): void;
  close?(socket: ServerWebSocket<Data>): void;
}

/**
 * Where the socket routes (MCP transports, voice WebSocket) attach, before the REST pipeline's
 * catch-all: exact paths for exchanges (`*` takes every method the others do not), `:name`
 * patterns for WebSockets. Every adapter answers 503 `starting` for them while the gateway starts.
 */
export interface SocketRoutes {
  route(method: 'GET' | 'POST' | 'DELETE' | '*', path: string, handler: ExchangeHandler, options: { maxBufferedBytes: number }): void;
  webSocket<Data>(pattern: string, route: WebSocketRoute<Data>): void;
}

/** Path parameters of `pattern` (`/a/:name/b`) in `path`, or undefined when it does not match. */
export function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    if (segment.startsWith(':')) {
      if (got[i] === '') return undefined;
      params[segment.slice(1)] = got[i]!;
    } else if (segment !== got[i]) return undefined;
  }
  return params;
}
