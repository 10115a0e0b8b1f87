import { request as httpRequest } from 'node:http';
import uWS from 'uWebSockets.js';
import type { HttpAdapter, Listener, ListenOptions } from './adapter.js';
import type { GatewayApp } from './app.js';
import { errorResult } from './errors.js';
import { answerResult } from './exchange.js';
import { bindError, listenFailure } from './listen-failure.js';
import { RequestGate } from './request-gate.js';
import type { ServerWebSocket, SocketRoutes, WebSocketRoute } from './socket-routes.js';
import { uwsBody, UwsExchange, uwsHeaders, uwsPeer, writeUws } from './uws-exchange.js';

/**
 * uWS's LIBUS_LISTEN_EXCLUSIVE_PORT (1): the native module exports it, but its typings have it only as
 * a member of an enum and type `listen(host, port, options, cb)` not at all.
 */
const EXCLUSIVE_PORT = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT?: number }).LIBUS_LISTEN_EXCLUSIVE_PORT ?? 1;
type ListenExclusive = (host: string, port: number, options: number, cb: (socket: uWS.us_listen_socket | false) => void) => void;

/** The gateway on uWebSockets.js: the fast path, where its native build loads (see `probeUws`). */
export const uwsAdapter: HttpAdapter = { name: 'uws', listen };

/**
 * With `uws-exchange.ts`, the only place uWebSockets.js is touched: it translates a uWS request for
 * the request gate (its head, body, abort and answer), which decides everything else. Routes that
 * need the exchange or a socket (SSE, voice WS) attach via `before`.
 */
export function listen(app: GatewayApp, options: ListenOptions): Promise<Listener> {
  const uws = uWS.App();
  // uWS shows no connection to JavaScript before its request head has arrived (and closes one that
  // takes 10 s for that, or sits idle 10 s), so what holds a slot of the per-address cap is the open
  // exchange: a request being read or answered, a stream, a WebSocket.
  const gate = new RequestGate(app, options);
  options.before?.(socketRoutes(uws, gate));
  uws.any('/*', (res, req) => {
    const method = req.getCaseSensitiveMethod().toUpperCase();
    gate.serve(
      {
        method,
        path: req.getUrl(),
        queryString: req.getQuery() ?? '',
        headers: uwsHeaders(req),
        peer: uwsPeer(res),
        answer: (result, closeConnection) => writeUws(res, result, closeConnection),
        onGone: (listener) => res.onAborted(listener),
        body: uwsBody(res),
      },
      true,
    );
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
      resolve(
        gate.listener(uWS.us_socket_local_port(socket as unknown as uWS.us_socket), {
          stopAccepting: () => uWS.us_listen_socket_close(socket),
          cut: () => (uws as unknown as { close(): void }).close(),
        }),
      );
    });
  });
}

const ROUTE_FUNCTIONS = { GET: 'get', POST: 'post', DELETE: 'del', '*': 'any' } as const;

/**
 * The socket routes on uWS: each is refused as the gate says (503 while starting or draining), as the
 * catch-all route is, and holds a slot of its peer's address until it ends.
 */
function socketRoutes(uws: uWS.TemplatedApp, gate: RequestGate): SocketRoutes {
  return {
    route(method, path, handler, { maxBufferedBytes }) {
      uws[ROUTE_FUNCTIONS[method]](path, (res, req) => {
        const refused = gate.refusal(req.getCaseSensitiveMethod().toUpperCase());
        if (refused) {
          writeUws(res, refused.result, refused.closeConnection);
          return;
        }
        const address = uwsPeer(res);
        const exchange = new UwsExchange(res, req, maxBufferedBytes, gate.clientAddress, gate.limits.requestTimeoutMs);
        const capped = gate.admitAddress(address);
        if (capped) {
          answerResult(exchange, capped.result, capped.closeConnection);
          return;
        }
        exchange.onEnd(() => gate.releaseAddress(address));
        handler(exchange);
      });
    },
    webSocket(pattern, route) {
      attachWebSocket(uws, pattern, route, gate);
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

function attachWebSocket<Data>(uws: uWS.TemplatedApp, pattern: string, route: WebSocketRoute<Data>, gate: RequestGate): void {
  const names = pattern
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1));
  uws.ws<SocketHolder<Data>>(pattern, {
    maxPayloadLength: route.maxPayloadLength,
    idleTimeout: route.idleTimeoutSeconds,
    maxBackpressure: route.maxBackpressure,
    upgrade: (res, req, context) => {
      const address = uwsPeer(res);
      const refused = gate.refusal(req.getCaseSensitiveMethod().toUpperCase()) ?? gate.admitAddress(address);
      if (refused) {
        writeUws(res, refused.result, refused.closeConnection);
        return;
      }
      // Counted from here until the socket closes; an upgrade that is refused or abandoned lets go at once.
      let counted = true;
      const letGo = () => {
        if (counted) gate.releaseAddress(address);
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
      const headers = uwsHeaders(req);
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
            writeUws(res, errorResult(err), true);
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
