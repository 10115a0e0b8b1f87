import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { ErrorCodes } from '@switchboard/sdk';
import type { HttpAdapter, Listener, ListenOptions } from './adapter.js';
import type { GatewayApp } from './app.js';
import { encodeResult } from './answers.js';
import { tooSlow } from './connection-limits.js';
import { errorResult } from './errors.js';
import { answerResult } from './exchange.js';
import { listenFailure } from './listen-failure.js';
import { joinHeaders, nodeBody, NodeExchange, peerAddress, splitUrl } from './node-exchange.js';
import { NO_BODY, RequestGate } from './request-gate.js';
import { matchPattern, type ExchangeHandler, type ServerWebSocket, type WebSocketRoute } from './socket-routes.js';
import type { HttpResult } from './types.js';

/** The gateway on node:http and ws: portable, for a Node or libc where uWS's native build cannot serve. */
export const nodeAdapter: HttpAdapter = { name: 'node', listen };

interface ExchangeRoute {
  readonly handler: ExchangeHandler;
  readonly maxBufferedBytes: number;
}

interface SocketRoute {
  readonly pattern: string;
  readonly route: WebSocketRoute<unknown>;
  readonly server: WebSocketServer;
}

/**
 * The portable adapter: the same contract as the uWS one (plain requests to the app, body limits,
 * 503 while starting, draining on close, exchanges for the socket routes, WebSockets through `ws`).
 */
function listen(app: GatewayApp, options: ListenOptions): Promise<Listener> {
  const gate = new RequestGate(app, options);
  const { limits } = gate;
  // node refuses a headers time-out longer than the request time-out; a head is part of the request.
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  // uWS does not require a Host header; nor does this. node checks its time-outs every
  // connectionsCheckingInterval (30 s by default), so that is brought close to the shortest one.
  const server = createServer({
    requireHostHeader: false,
    headersTimeout,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
  });
  capConnections(server, gate);
  const exchangeRoutes = new Map<string, Map<string, ExchangeRoute>>();
  const socketRoutes: SocketRoute[] = [];
  const sockets = new Set<WebSocket>();

  options.before?.({
    route(method, path, handler, { maxBufferedBytes }) {
      const byMethod = exchangeRoutes.get(path) ?? new Map<string, ExchangeRoute>();
      byMethod.set(method, { handler, maxBufferedBytes });
      exchangeRoutes.set(path, byMethod);
    },
    webSocket(pattern, route) {
      const wss = new WebSocketServer({ noServer: true, maxPayload: route.maxPayloadLength, perMessageDeflate: false, clientTracking: false });
      socketRoutes.push({ pattern, route: route as WebSocketRoute<unknown>, server: wss });
    },
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? 'GET').toUpperCase();
    const { path, queryString } = splitUrl(req.url);
    const byMethod = exchangeRoutes.get(path);
    const socketRoute = byMethod && (byMethod.get(method) ?? byMethod.get('*'));
    if (!socketRoute) {
      // The connection holds the peer's slot of the cap (capConnections), not the request.
      gate.serve(
        {
          method,
          path,
          queryString,
          headers: joinHeaders(req.rawHeaders),
          peer: peerAddress(req.socket.remoteAddress),
          answer: (result, closeConnection) => writeResult(res, result, closeConnection),
          onGone: (listener) => res.on('close', listener),
          body: nodeBody(req),
        },
        false,
      );
      return;
    }
    const refused = gate.refusal(method);
    if (refused) {
      writeResult(res, refused.result, refused.closeConnection);
      return;
    }
    const exchange = new NodeExchange(req, res, socketRoute.maxBufferedBytes, gate.clientAddress, limits.requestTimeoutMs);
    try {
      socketRoute.handler(exchange);
    } catch (err) {
      // A throwing route is a bug; it costs one 500, never the process.
      options.logger.error({ err, path }, 'socket route failed');
      answerResult(exchange, errorResult(err), true);
    }
  });

  // A request node:http cannot parse gets the contract's error body, as every other refusal does.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLargeHead = err.code === 'HPE_HEADER_OVERFLOW';
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      writeRaw(socket, tooSlow());
      return;
    }
    writeRaw(socket, {
      status: tooLargeHead ? 431 : 400,
      body: { error: tooLargeHead ? 'The request headers are too large.' : 'The request is not valid HTTP.', code: ErrorCodes.BAD_REQUEST },
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    const method = (req.method ?? 'GET').toUpperCase();
    const refused = gate.refusal(method);
    if (refused) {
      writeRaw(socket, refused.result);
      return;
    }
    const { path, queryString } = splitUrl(req.url);
    const headers = joinHeaders(req.rawHeaders);
    for (const candidate of socketRoutes) {
      const params = matchPattern(candidate.pattern, path);
      if (!params) continue;
      Promise.resolve()
        .then(() => candidate.route.upgrade({ params, queryString, headers }))
        .then(
          (data) => {
            if (socket.destroyed) return;
            candidate.server.handleUpgrade(req, socket, head, (ws) => accept(ws, data, candidate.route, sockets));
          },
          (err: unknown) => writeRaw(socket, errorResult(err)),
        );
      return;
    }
    // Not a WebSocket route: the request is answered as uWS would, through the gate and the REST pipeline.
    gate.serve(
      {
        method,
        path,
        queryString,
        headers,
        peer: peerAddress(req.socket.remoteAddress),
        answer: (result) => writeRaw(socket, result),
        onGone: (listener) => socket.once('close', listener),
        body: NO_BODY,
      },
      false,
    );
  });

  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => reject(listenFailure(options.host, options.port, err.code, err));
    server.once('error', onError);
    // Exclusive, as the uWS adapter binds: never shared with a cluster worker or another process.
    server.listen({ port: options.port, host: options.host, exclusive: true }, () => {
      server.off('error', onError);
      const address = server.address();
      let closed: Promise<void> | undefined;
      resolve(
        gate.listener(typeof address === 'object' && address ? address.port : options.port, {
          stopAccepting: () => {
            closed = new Promise<void>((resolve) => server.close(() => resolve()));
          },
          cut: async () => {
            server.closeAllConnections();
            for (const ws of sockets) ws.terminate();
            // Every socket was cut; the bound only guards against a socket node no longer tracks.
            await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
          },
        }),
      );
    });
  });
}

/**
 * Refuses a connection past the per-address cap before node:http parses anything on it, so a
 * client holding many sockets (slow or idle) costs one file descriptor per socket for a moment only.
 * node:http's own connection handler is taken off the server and called for admitted sockets.
 */
function capConnections(server: Server, gate: RequestGate): void {
  if (gate.limits.maxConnectionsPerAddress === 0) return;
  const handlers = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = peerAddress(socket.remoteAddress);
    const refused = gate.admitAddress(address);
    if (!refused) {
      socket.once('close', () => gate.releaseAddress(address));
      for (const handler of handlers) handler.call(server, socket);
      return;
    }
    // The answer uWS gives such a client, written at once; the client's request is read and dropped so
    // that closing does not reset the connection before the answer is read.
    socket.on('error', () => undefined);
    socket.resume();
    writeRaw(socket, refused.result);
    setTimeout(() => socket.destroy(), 1000).unref();
  });
}

/** Wires an accepted WebSocket to its route, with uWS's idle time-out (pings) and back-pressure limit. */
function accept(ws: WebSocket, data: unknown, route: WebSocketRoute<unknown>, sockets: Set<WebSocket>): void {
  sockets.add(ws);
  let closing = false;
  const socket: ServerWebSocket<unknown> = {
    data,
    get open() {
      return !closing && ws.readyState === ws.OPEN;
    },
    send(text) {
      if (ws.readyState !== ws.OPEN || ws.bufferedAmount > route.maxBackpressure) return;
      ws.send(text);
    },
    end(code = 1000) {
      if (closing) return;
      closing = true;
      ws.close(code);
    },
  };
  let alive = true;
  const heartbeat = setInterval(() => {
    if (!alive) {
      ws.terminate();
      return;
    }
    alive = false;
    ws.ping();
  }, (route.idleTimeoutSeconds * 1000) / 2);
  heartbeat.unref();
  ws.on('pong', () => {
    alive = true;
  });
  ws.on('error', () => undefined);
  ws.on('message', (message: RawData) => {
    alive = true;
    route.message(socket, toBuffer(message));
  });
  ws.on('close', () => {
    closing = true;
    clearInterval(heartbeat);
    sockets.delete(ws);
    route.close?.(socket);
  });
  route.open?.(socket);
}

function toBuffer(message: RawData): Buffer {
  if (Buffer.isBuffer(message)) return message;
  if (Array.isArray(message)) return Buffer.concat(message);
  return Buffer.from(message);
}

function payloadOf(result: HttpResult): { headers: Record<string, string>; payload: Buffer } {
  const encoded = encodeResult(result);
  const payload = typeof encoded.payload === 'string' ? Buffer.from(encoded.payload) : encoded.payload;
  return { headers: { ...encoded.headers, 'content-length': String(payload.byteLength) }, payload };
}

function writeResult(res: ServerResponse, result: HttpResult, closeConnection: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const { headers, payload } = payloadOf(result);
  if (closeConnection) headers.connection = 'close';
  try {
    res.writeHead(result.status, headers);
  } catch (err) {
    // A header node refuses (a line break in a value): the contract's 500 rather than a crash.
    const fallback = payloadOf(errorResult(err));
    res.writeHead(500, fallback.headers);
    res.end(fallback.payload);
    return;
  }
  res.end(payload);
}

/** An HTTP answer written straight to a socket that asked to upgrade; the connection closes after it. */
function writeRaw(socket: Duplex, result: HttpResult): void {
  if (socket.destroyed) return;
  const { headers, payload } = payloadOf(result);
  const lines = [`HTTP/1.1 ${result.status} ${STATUS_CODES[result.status] ?? ''}`, 'connection: close'];
  for (const [name, value] of Object.entries(headers)) {
    if (!/[\r\n]/.test(value)) lines.push(`${name}: ${value}`);
  }
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]));
}
