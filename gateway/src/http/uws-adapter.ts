import { request as httpRequest, STATUS_CODES } from 'node:http';
import uWS from 'uWebSockets.js';
import type { HttpAdapter, Listener, ListenOptions } from './adapter.js';
import type { GatewayApp } from './app.js';
import { BODYLESS, shuttingDown, STARTING, tooLarge } from './answers.js';
import { peerIsClient, type ClientAddress } from './client-address.js';
import { AddressCounts, DEFAULT_CONNECTION_LIMITS, tooManyConnections, tooSlow, type ConnectionLimits } from './connection-limits.js';
import { errorResult } from './errors.js';
import { bindError, listenFailure } from './listen-failure.js';
import type { ServerWebSocket, SocketRoutes, WebSocketRoute } from './socket-routes.js';
import type { HttpRequest, HttpResult } from './types.js';
import { UwsExchange } from './uws-exchange.js';

interface Exchange {
  /** The client went away or the answer was sent: the response must not be touched again. */
  aborted: boolean;
  /** Counted in `inFlight` and against its address, and not yet released. */
  counted: boolean;
  /** The peer's address, once the exchange counts against it. */
  address?: string;
  /** Stops the body's time-out once the exchange ends another way. */
  stopReading?: () => void;
}

/**
 * uWS's LIBUS_LISTEN_EXCLUSIVE_PORT (1): the native module exports it, but its typings have it only as
 * a member of an enum and type `listen(host, port, options, cb)` not at all.
 */
const EXCLUSIVE_PORT = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT?: number }).LIBUS_LISTEN_EXCLUSIVE_PORT ?? 1;
type ListenExclusive = (host: string, port: number, options: number, cb: (socket: uWS.us_listen_socket | false) => void) => void;

/** The gateway on uWebSockets.js: the fast path, where its native build loads (see `probeUws`). */
export const uwsAdapter: HttpAdapter = { name: 'uws', listen };

/**
 * With `uws-exchange.ts`, the only place uWebSockets.js is touched: it turns a uWS request into a
 * plain HttpRequest (reading the body within its limit and honouring aborts), hands it to the app,
 * and writes the plain result back. Routes that need the exchange or a socket (SSE, voice WS)
 * attach via `before`.
 */
export function listen(app: GatewayApp, options: ListenOptions): Promise<Listener> {
  const uws = uWS.App();
  const limits = options.limits ?? DEFAULT_CONNECTION_LIMITS;
  // uWS shows no connection to JavaScript before its request head has arrived (and closes one that
  // takes 10 s for that, or sits idle 10 s), so what is counted per address is the open exchanges:
  // requests being read or answered, streams and WebSockets.
  const addresses = new AddressCounts(limits.maxConnectionsPerAddress);
  let inFlight = 0;
  let draining = false;
  let starting = options.starting === true;
  let idle: (() => void) | undefined;
  const release = (exchange: Exchange) => {
    exchange.stopReading?.();
    if (!exchange.counted) return;
    exchange.counted = false;
    if (exchange.address !== undefined) addresses.release(exchange.address);
    inFlight--;
    if (inFlight === 0) idle?.();
  };

  const clientAddress = options.clientAddress ?? peerIsClient;
  options.before?.(socketRoutes(uws, () => starting, clientAddress, addresses, limits));
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
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const remoteAddress = clientAddress(peer, headers['x-forwarded-for']);
    if (draining) {
      send(res, exchange, shuttingDown(), true);
      return;
    }
    // The cap counts by the socket's peer, as node:http's does: it bounds what one host holds open here.
    if (!addresses.admit(peer)) {
      send(res, exchange, tooManyConnections(limits.maxConnectionsPerAddress), true);
      return;
    }
    inFlight++;
    exchange.counted = true;
    exchange.address = peer;
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
    exchange.stopReading = readBody(res, limit, limits.requestTimeoutMs, (body) => {
      if (body === 'too large' || body === 'too slow') {
        send(res, exchange, body === 'too large' ? tooLarge(limit) : tooSlow(), true);
        done();
      } else {
        dispatch(body);
      }
    });
  });

  return new Promise((resolve, reject) => {
    // Exclusive: uWS otherwise binds with SO_REUSEPORT, and a second server on a taken port would start
    // and take a share of its connections.
    (uws as unknown as { listen: ListenExclusive }).listen(options.host, options.port, EXCLUSIVE_PORT, (socket) => {
      if (!socket) {
        // uWS says only that it failed; binding once with node:net tells why.
        void bindError(options.host, options.port).then((errno) => reject(listenFailure(options.host, options.port, errno)));
        return;
      }
      resolve({
        port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket),
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

/** {@link STARTING}, written straight on a uWS response. */
function answerStarting(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
  // A request body is left unread, so the connection cannot be reused after it.
  const closeConnection = !BODYLESS.has(req.getCaseSensitiveMethod().toUpperCase());
  res.cork(() => {
    res.writeStatus('503 Service Unavailable');
    for (const [name, value] of Object.entries(STARTING.headers)) res.writeHeader(name, value);
    res.end(STARTING.body, closeConnection);
  });
}

const ROUTE_FUNCTIONS = { GET: 'get', POST: 'post', DELETE: 'del', '*': 'any' } as const;

/**
 * The socket routes on uWS: each answers 503 `starting` while `isStarting()` holds, as the catch-all
 * route does, and counts against its address until it ends.
 */
function socketRoutes(uws: uWS.TemplatedApp, isStarting: () => boolean, clientAddress: ClientAddress, addresses: AddressCounts, limits: ConnectionLimits): SocketRoutes {
  return {
    route(method, path, handler, { maxBufferedBytes }) {
      uws[ROUTE_FUNCTIONS[method]](path, (res, req) => {
        if (isStarting()) {
          answerStarting(res, req);
          return;
        }
        const address = Buffer.from(res.getRemoteAddressAsText()).toString();
        const exchange = new UwsExchange(res, req, maxBufferedBytes, clientAddress, limits.requestTimeoutMs);
        if (!addresses.admit(address)) {
          const { status, headers, body } = tooManyConnections(limits.maxConnectionsPerAddress);
          exchange.answer(status, { ...headers, 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(body), true);
          return;
        }
        exchange.onEnd(() => addresses.release(address));
        handler(exchange);
      });
    },
    webSocket(pattern, route) {
      attachWebSocket(uws, pattern, route, isStarting, addresses, limits);
    },
  };
}

interface SocketHolder<Data> {
  data: Data;
  /** Stops counting the socket against its peer's address; once only. */
  letGo: () => void;
  socket?: ServerWebSocket<Data>;
  closed?: boolean;
}

function attachWebSocket<Data>(
  uws: uWS.TemplatedApp,
  pattern: string,
  route: WebSocketRoute<Data>,
  isStarting: () => boolean,
  addresses: AddressCounts,
  limits: ConnectionLimits,
): void {
  const names = pattern
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1));
  uws.ws<SocketHolder<Data>>(pattern, {
    maxPayloadLength: route.maxPayloadLength,
    idleTimeout: route.idleTimeoutSeconds,
    maxBackpressure: route.maxBackpressure,
    upgrade: (res, req, context) => {
      if (isStarting()) {
        answerStarting(res, req);
        return;
      }
      const address = Buffer.from(res.getRemoteAddressAsText()).toString();
      if (!addresses.admit(address)) {
        const { status, headers, body } = tooManyConnections(limits.maxConnectionsPerAddress);
        res.cork(() => {
          res.writeStatus(`${status} ${STATUS_CODES[status] ?? ''}`);
          for (const [name, value] of Object.entries({ ...headers, 'content-type': 'application/json; charset=utf-8' })) res.writeHeader(name, value);
          res.end(JSON.stringify(body), true);
        });
        return;
      }
      // Counted from here until the socket closes; an upgrade that is refused or abandoned lets go at once.
      let counted = true;
      const letGo = () => {
        if (counted) addresses.release(address);
        counted = false;
      };
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
        letGo();
      });
      const params: Record<string, string> = {};
      names.forEach((name, index) => {
        params[name] = req.getParameter(index) ?? '';
      });
      const queryString = req.getQuery() ?? '';
      const headers: Record<string, string> = {};
      req.forEach((name, value) => {
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      });
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      Promise.resolve()
        .then(() => route.upgrade({ params, queryString, headers }))
        .then(
          (data) => {
            if (!aborted) res.cork(() => res.upgrade<SocketHolder<Data>>({ data, letGo }, key, protocol, extensions, context));
          },
          (err: unknown) => {
            if (aborted) return;
            letGo();
            const { status, body } = errorResult(err);
            res.cork(() =>
              res
                .writeStatus(`${status} ${STATUS_CODES[status] ?? ''}`)
                .writeHeader('content-type', 'application/json; charset=utf-8')
                .end(JSON.stringify(body), true),
            );
          },
        );
    },
    open: (ws) => {
      const holder = ws.getUserData();
      const socket: ServerWebSocket<Data> = {
        get data() {
          return holder.data;
        },
        get open() {
          return holder.closed !== true;
        },
        send(text) {
          if (!holder.closed) ws.send(text, false);
        },
        end(code = 1000) {
          if (holder.closed) return;
          holder.closed = true;
          ws.end(code);
        },
      };
      holder.socket = socket;
      route.open?.(socket);
    },
    message: (ws, message) => {
      const holder = ws.getUserData();
      // uWS reuses the message's memory after this call returns, so it is copied.
      route.message(holder.socket!, Buffer.from(message.slice(0)));
    },
    close: (ws) => {
      const holder = ws.getUserData();
      holder.closed = true;
      holder.letGo();
      route.close?.(holder.socket!);
    },
  });
}

/**
 * Reads a request body within `limit` bytes and `timeoutMs` (node:http's requestTimeout, which uWS
 * lacks: uWS itself cuts a body only when it arrives slower than 16 KB/s for 10 s).
 */
function readBody(res: uWS.HttpResponse, limit: number, timeoutMs: number, callback: (body: Buffer | 'too large' | 'too slow') => void): () => void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const settle = (body: Buffer | 'too large' | 'too slow') => {
    settled = true;
    clearTimeout(timer);
    callback(body);
  };
  const timer = setTimeout(() => settle('too slow'), timeoutMs);
  timer.unref();
  res.onData((chunk, isLast) => {
    if (settled) return;
    size += chunk.byteLength;
    if (size > limit) {
      settle('too large');
      return;
    }
    // uWS reuses the chunk's memory after this call returns, so it must be copied.
    chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
    if (isLast) settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
  return () => {
    settled = true;
    clearTimeout(timer);
  };
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

/**
 * Proves that uWS serves on this Node: a loopback app answers one POST, using every request and
 * response call the adapter makes. A build that loads but lacks a call (the package's JavaScript
 * fallback throws `Not implemented` on the first request) fails here, at start, not on a client.
 * Rejects with the reason.
 */
export function probeUws(timeoutMs = 3000): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let step = 'uWS.App()';
    let failure: unknown;
    let listenSocket: uWS.us_listen_socket | undefined;
    let app: uWS.TemplatedApp | undefined;
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        if (listenSocket) uWS.us_listen_socket_close(listenSocket);
        (app as unknown as { close?(): void } | undefined)?.close?.();
      } catch {
        // Closing a half-working build is best effort; the verdict is already made.
      }
      if (err === undefined) resolve();
      else reject(err instanceof Error ? err : new Error(String(err)));
    };
    const failed = () => new Error(`${step}: ${failure instanceof Error ? failure.message : String(failure)}`);
    const timer = setTimeout(
      () => finish(failure !== undefined ? failed() : new Error(`no answer to a probe request within ${timeoutMs} ms (last step: ${step})`)),
      timeoutMs,
    );
    try {
      app = uWS.App().any('/*', (res, req) => {
        try {
          step = 'res.onAborted';
          res.onAborted(() => undefined);
          step = 'req.getCaseSensitiveMethod';
          const method = req.getCaseSensitiveMethod().toUpperCase();
          step = 'req.getUrl';
          const path = req.getUrl();
          step = 'req.getQuery';
          const query = req.getQuery() ?? '';
          step = 'req.forEach';
          let header = '';
          req.forEach((name, value) => {
            if (name === 'x-probe') header = value;
          });
          step = 'res.getRemoteAddressAsText';
          Buffer.from(res.getRemoteAddressAsText()).toString();
          step = 'res.onData';
          const chunks: Buffer[] = [];
          res.onData((chunk, isLast) => {
            chunks.push(Buffer.from(chunk.slice(0)));
            if (!isLast) return;
            try {
              step = 'res.cork/writeStatus/writeHeader/end';
              res.cork(() => {
                res.writeStatus('200 OK').writeHeader('content-type', 'text/plain');
                res.end(`${method} ${path}?${query} ${header} ${Buffer.concat(chunks).toString()}`);
              });
            } catch (err) {
              failure = err;
            }
          });
        } catch (err) {
          failure = err;
          try {
            res.close();
          } catch {
            // A build that cannot read a request may not close one either; the timer ends the probe.
          }
        }
      });
      step = 'app.listen';
      app.listen('127.0.0.1', 0, (socket) => {
        if (!socket) {
          finish(new Error('it could not listen on a loopback port'));
          return;
        }
        listenSocket = socket;
        step = 'us_socket_local_port';
        const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
        step = 'a probe request';
        const expected = 'POST /probe?q=1 yes ping';
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/probe?q=1', headers: { 'x-probe': 'yes', 'content-length': '4' }, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            if (failure !== undefined) finish(failed());
            else if (res.statusCode !== 200 || text !== expected) finish(new Error(`a probe request was answered ${res.statusCode} ${JSON.stringify(text)}, not 200 ${JSON.stringify(expected)}`));
            else finish();
          });
          res.on('error', (err) => finish(err));
        });
        req.on('error', (err) => finish(failure !== undefined ? failed() : err));
        req.end('ping');
      });
    } catch (err) {
      failure = err;
      finish(failed());
    }
  });
}
