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
  options: { host: string; port: number; logger: Logger; before?: (uws: uWS.TemplatedApp) => void },
): Promise<Listener> {
  const uws = uWS.App();
  let inFlight = 0;
  let draining = false;
  let idle: (() => void) | undefined;
  const release = (exchange: Exchange) => {
    if (!exchange.counted) return;
    exchange.counted = false;
    inFlight--;
    if (inFlight === 0) idle?.();
  };

  options.before?.(uws);
  uws.any('/*', (res, req) => {
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
