import { STATUS_CODES } from 'node:http';
import uWS from 'uWebSockets.js';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Logger } from '@switchboard/runtime';
import type { GatewayApp } from './app.js';
import { errorResult } from './errors.js';
import type { HttpRequest, HttpResult } from './types.js';

/** A listening gateway socket. */
export interface Listener {
  readonly port: number;
  /** The uWS app, for routes that need sockets (SSE, WebSocket) to attach to. */
  readonly uws: uWS.TemplatedApp;
  /** Stops accepting, waits up to `graceMs` for requests in flight, then closes every connection. */
  close(graceMs: number): Promise<void>;
  /** Requests being handled now. */
  readonly inFlight: number;
  /** Ends the start-up window: routes answer from now on instead of 503 `starting`. */
  ready(): void;
}

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

interface Exchange {
  /** The client went away or the answer was sent: the response must not be touched again. */
  aborted: boolean;
  /** Counted in `inFlight` and not yet released. */
  counted: boolean;
}

/**
 * The only place uWebSockets.js is touched for plain HTTP: it turns a uWS request into a plain
 * HttpRequest (reading the body within its limit and honouring aborts), hands it to the app, and
 * writes the plain result back. Routes that need a socket (SSE, voice WS) attach via `before`.
 */
export function listen(
  app: GatewayApp,
  options: {
    host: string;
    port: number;
    logger: Logger;
    before?: (uws: uWS.TemplatedApp) => void;
    /** Open the port before the routes are ready: every request answers 503 `starting` until `ready()`. */
    starting?: boolean;
  },
): Promise<Listener> {
  const uws = uWS.App();
  let inFlight = 0;
  let draining = false;
  let starting = options.starting === true;
  let idle: (() => void) | undefined;
  const release = (exchange: Exchange) => {
    if (!exchange.counted) return;
    exchange.counted = false;
    inFlight--;
    if (inFlight === 0) idle?.();
  };

  options.before?.(gated(uws, () => starting));
  uws.any('/*', (res, req) => {
    if (starting) {
      answerStarting(res, req);
      return;
    }
    const exchange: Exchange = { aborted: false, counted: false };
    let reading = true;
    res.onAborted(() => {
      exchange.aborted = true;
      // An abort while the body is still arriving ends the exchange; once dispatched, the handler's end releases it.
      if (reading) release(exchange);
    });
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const queryString = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((name, value) => {
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    });
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
    if (draining) {
      send(res, exchange, errorResult(new SwitchboardError(ErrorCodes.UNAVAILABLE, 'The server is shutting down; retry shortly.')), true);
      return;
    }
    inFlight++;
    exchange.counted = true;
    const done = () => release(exchange);
    const limit = app.bodyLimit(method, path);
    const declared = Number(headers['content-length'] ?? 0);
    if (declared > limit) {
      send(res, exchange, tooLarge(limit), true);
      done();
      return;
    }
    const dispatch = (rawBody: Buffer) => {
      reading = false;
      const request: HttpRequest = { method, path, queryString, headers, rawBody, remoteAddress };
      app
        .handle(request)
        .then((result) => send(res, exchange, result, false))
        .catch((err) => {
          options.logger.error({ err }, 'unhandled gateway error');
          send(res, exchange, errorResult(err), false);
        })
        .finally(done);
    };
    if (BODYLESS.has(method) && !declared && headers['transfer-encoding'] === undefined) {
      dispatch(Buffer.alloc(0));
      return;
    }
    readBody(res, limit, (body) => {
      if (body === undefined) {
        send(res, exchange, tooLarge(limit), true);
        done();
      } else {
        dispatch(body);
      }
    });
  });

  return new Promise((resolve, reject) => {
    uws.listen(options.host, options.port, (socket) => {
      if (!socket) {
        reject(new Error(`Cannot listen on ${options.host}:${options.port}; is the port in use? Pick another with --port.`));
        return;
      }
      resolve({
        port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket),
        uws,
        get inFlight() {
          return inFlight;
        },
        ready() {
          starting = false;
        },
        async close(graceMs: number) {
          draining = true;
          uWS.us_listen_socket_close(socket);
          if (inFlight > 0) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, graceMs);
              idle = () => {
                clearTimeout(timer);
                resolve();
              };
            });
          }
          (uws as unknown as { close(): void }).close();
        },
      });
    });
  });
}

const STARTING_BODY = JSON.stringify({ status: 'starting' });

/** The answer while the port is open but the routes are not ready yet: 503, never a 404 from an empty router. */
function answerStarting(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
  // A request body is left unread, so the connection cannot be reused after it.
  const closeConnection = !BODYLESS.has(req.getCaseSensitiveMethod().toUpperCase());
  res.cork(() => {
    res
      .writeStatus('503 Service Unavailable')
      .writeHeader('content-type', 'application/json; charset=utf-8')
      .writeHeader('retry-after', '1')
      .writeHeader('cache-control', 'no-store');
    res.end(STARTING_BODY, closeConnection);
  });
}

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'del', 'patch', 'options', 'head', 'any']);

/**
 * The uWS app as the socket routes (MCP, voice) see it: each handler and WebSocket upgrade they
 * register answers 503 `starting` while `isStarting()` holds, as the catch-all route does.
 */
function gated(uws: uWS.TemplatedApp, isStarting: () => boolean): uWS.TemplatedApp {
  const proxy: uWS.TemplatedApp = new Proxy(uws, {
    get(target, property) {
      if (typeof property === 'string' && ROUTE_METHODS.has(property)) {
        return (pattern: string, handler: (res: uWS.HttpResponse, req: uWS.HttpRequest) => void) => {
          (target[property as 'get'] as (p: string, h: typeof handler) => unknown).call(target, pattern, (res, req) =>
            isStarting() ? answerStarting(res, req) : handler(res, req),
          );
          return proxy;
        };
      }
      if (property === 'ws') {
        return (pattern: string, behavior: uWS.WebSocketBehavior<unknown>) => {
          const upgrade = behavior.upgrade;
          target.ws(pattern, {
            ...behavior,
            upgrade: (res, req, context) => {
              if (isStarting()) answerStarting(res, req);
              else if (upgrade) upgrade(res, req, context);
              else res.upgrade({}, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
            },
          });
          return proxy;
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return proxy;
}

function readBody(res: uWS.HttpResponse, limit: number, callback: (body: Buffer | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  res.onData((chunk, isLast) => {
    if (over) return;
    size += chunk.byteLength;
    if (size > limit) {
      over = true;
      callback(undefined);
      return;
    }
    // uWS reuses the chunk's memory after this call returns, so it must be copied.
    chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
    if (isLast) callback(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
}

function tooLarge(limit: number): HttpResult {
  return errorResult(new SwitchboardError(ErrorCodes.PAYLOAD_TOO_LARGE, `The body is larger than the ${limit}-byte limit for this route.`));
}

function send(res: uWS.HttpResponse, exchange: Exchange, result: HttpResult, closeConnection: boolean): void {
  if (exchange.aborted) return;
  const { status } = result;
  const headers = { ...result.headers };
  let payload: string | Buffer;
  if (result.body === undefined) payload = '';
  else if (typeof result.body === 'string' || Buffer.isBuffer(result.body)) payload = result.body;
  else {
    payload = JSON.stringify(result.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  res.cork(() => {
    res.writeStatus(`${status} ${STATUS_CODES[status] ?? ''}`);
    for (const name in headers) res.writeHeader(name, headers[name]!);
    res.end(payload, closeConnection);
  });
  exchange.aborted = true;
}
