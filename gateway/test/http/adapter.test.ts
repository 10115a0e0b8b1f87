import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { createLogger } from '@switchboard/runtime';
import WebSocket from 'ws';
import type { Listener } from '../../src/http/adapter.js';
import { GatewayApp, type GatewayAppOptions } from '../../src/http/app.js';
import type { SocketRoutes } from '../../src/http/socket-routes.js';
import type { RouteDefinition } from '../../src/http/types.js';
import { DEFAULT_CONNECTION_LIMITS } from '../../src/http/connection-limits.js';
import { GatewayMetrics } from '../../src/metrics.js';
import { testAdapter } from '../adapter.js';
import { eventually } from '@switchboard/runtime/testing';

// The adapter contract every HTTP adapter meets (scripts/test.mjs runs this file on uWS and on node:http).

const API_LIMIT = 4096;
const WEBHOOK_LIMIT = 16_384;
const OK = { 200: { description: 'ok' } };

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

/** One request on its own connection (no pooling, so a draining server is seen as it is). */
function send(port: number, method: string, path: string, options: { headers?: Record<string, string>; body?: Buffer | string; chunked?: boolean } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    if (options.body !== undefined && !options.chunked) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Raw bytes over TCP, for what node:http's client will not send (repeated headers); resolves with what came back. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    // Bounded: a server that neither answers nor closes fails the test instead of hanging it.
    socket.setTimeout(2000, () => socket.destroy(new Error('no answer and no close within 2 s')));
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
      if (/\r\n\r\n/.test(answer) && /content-length: (\d+)/i.test(answer)) {
        const length = Number(/content-length: (\d+)/i.exec(answer)![1]);
        if (Buffer.byteLength(answer.split('\r\n\r\n').slice(1).join('\r\n\r\n')) >= length) socket.end();
      }
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function openSocket(port: number, path: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => reject(Object.assign(new Error(`status ${res.statusCode}`), { status: res.statusCode, body: Buffer.concat(chunks).toString() })));
    });
    ws.once('error', reject);
  });
}

const nextMessage = (ws: WebSocket) => new Promise<string>((resolve) => ws.once('message', (data) => resolve(data.toString())));
const closeOf = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

function routes(gate: { release?: () => void }): RouteDefinition[] {
  const raw = ['application/octet-stream'];
  return [
    {
      method: 'GET',
      path: '/echo',
      operationId: 'echo',
      summary: 'echo',
      tag: 'test',
      auth: 'public',
      query: Type.Object({ x: Type.Optional(Type.String()) }, { additionalProperties: false }),
      responses: OK,
      handler: ({ request: r, query }) => ({ status: 200, body: { method: r.method, path: r.path, query, test: r.headers['x-test'] ?? null, remote: r.remoteAddress } }),
    },
    { method: 'POST', path: '/upload', operationId: 'upload', summary: 'upload', tag: 'test', auth: 'public', rawBody: raw, responses: OK, handler: ({ request: r }) => ({ status: 200, body: { size: r.rawBody.length } }) },
    {
      method: 'POST',
      path: '/hook',
      operationId: 'hook',
      summary: 'hook',
      tag: 'test',
      auth: 'public',
      rawBody: raw,
      bodyLimit: 'webhook',
      responses: OK,
      handler: ({ request: r }) => ({ status: 200, body: { size: r.rawBody.length } }),
    },
    {
      method: 'GET',
      path: '/slow',
      operationId: 'slow',
      summary: 'slow',
      tag: 'test',
      auth: 'public',
      responses: OK,
      handler: () => new Promise((resolve) => (gate.release = () => resolve({ status: 200, body: { slow: 'done' } }))),
    },
  ];
}

interface Recorded {
  opened: string[];
  closed: string[];
}

function attach(socketRoutes: SocketRoutes, recorded: Recorded): void {
  const buffering = { maxBufferedBytes: 64 * 1024 };
  socketRoutes.route(
    'GET',
    '/stream',
    (exchange) => {
      exchange.open(200, { 'content-type': 'text/event-stream' }, ': open\n\n');
      void exchange.write('data: one\n\n').then(() => exchange.end());
    },
    buffering,
  );
  socketRoutes.route('GET', '/held', (exchange) => exchange.open(200, { 'content-type': 'text/event-stream' }, ': open\n\n'), buffering);
  socketRoutes.route(
    'POST',
    '/stream',
    (exchange) => {
      void exchange.readBody(100).then(
        (body) => (body === undefined ? exchange.answer(413, {}, 'too large', true) : exchange.answer(200, { 'content-type': 'text/plain' }, `read ${body.length} ${exchange.query.get('q')}`)),
        () => undefined,
      );
    },
    buffering,
  );
  socketRoutes.route('*', '/stream', (exchange) => exchange.answer(405, { allow: 'GET, POST' }), buffering);
  socketRoutes.webSocket<{ name: string }>('/ws/:name', {
    maxPayloadLength: 1024,
    idleTimeoutSeconds: 60,
    maxBackpressure: 1 << 20,
    upgrade: async ({ params, headers, queryString }) => {
      if (headers['x-deny']) throw new SwitchboardError(ErrorCodes.FORBIDDEN, 'The signature does not match.');
      return { name: `${params.name}${queryString ? `?${queryString}` : ''}` };
    },
    open: (socket) => void recorded.opened.push(socket.data.name),
    message: (socket, data) => {
      const text = data.toString();
      if (text === 'bye') socket.end(1000);
      else socket.send(`${socket.data.name}:${text}`);
    },
    close: (socket) => void recorded.closed.push(socket.data.name),
  });
}

describe('HTTP adapter contract', async () => {
  const adapter = await testAdapter();
  const logger = createLogger({ level: 'silent', pretty: false });
  const gate: { release?: () => void } = {};
  const recorded: Recorded = { opened: [], closed: [] };
  let listener: Listener;
  let port: number;

  const start = async (starting = false) => {
    const app = new GatewayApp({ ports: {} as GatewayAppOptions['ports'], metrics: new GatewayMetrics(), logger, bodyLimits: { api: API_LIMIT, webhook: WEBHOOK_LIMIT } });
    app.add(...routes(gate));
    return adapter.listen(app, { host: '127.0.0.1', port: 0, logger, starting, before: (r) => attach(r, recorded) });
  };

  before(async () => {
    listener = await start();
    port = listener.port;
  });
  after(async () => {
    await listener.close(0);
  });

  it(`[${adapter.name}] answers a plain request with the app's result`, async () => {
    const res = await send(port, 'GET', '/echo?x=1', { headers: { 'x-test': 'yes' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json(), { method: 'GET', path: '/echo', query: { x: '1' }, test: 'yes', remote: '127.0.0.1' });
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    const missing = await send(port, 'GET', '/nowhere');
    assert.equal(missing.status, 404);
    assert.equal(missing.json().code, 'NOT_FOUND');
  });

  it(`[${adapter.name}] tells a keep-alive client how long an idle connection is kept, no longer than it is`, async () => {
    // A client that reuses a connection as the server closes it gets a reset, and cannot retry a POST.
    // uWS sweeps idle connections every 4 s past its fixed 10 s, so closes one after 8 s at the earliest.
    const earliestCloseSeconds = adapter.name === 'uws' ? 8 : DEFAULT_CONNECTION_LIMITS.idleTimeoutMs / 1000;
    const agent = new Agent({ keepAlive: true });
    try {
      const keepAlive = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'GET', path: '/echo', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.headers['keep-alive'])));
        });
        req.on('error', reject);
        req.end();
      });
      const seconds = Number(/^timeout=(\d+)$/.exec(keepAlive)?.[1]);
      assert.ok(seconds > 0 && seconds <= earliestCloseSeconds, `keep-alive: ${keepAlive}`);
    } finally {
      agent.destroy();
    }
  });

  it(`[${adapter.name}] joins repeated request headers as uWS does`, async () => {
    const answer = await raw(port, 'GET /echo HTTP/1.1\r\nHost: x\r\nX-Test: a\r\nX-Test: b\r\nConnection: close\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 200/);
    assert.match(answer, /"test":"a, b"/);
  });

  it(`[${adapter.name}] survives requests that are not HTTP: a 400 with the contract body, or a closed connection`, async () => {
    for (const garbage of ['NOT HTTP AT ALL\r\n\r\n', 'GET /echo HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n', `GET /echo HTTP/1.1\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`]) {
      const answer = await raw(port, garbage).catch(() => '');
      if (answer) {
        assert.match(answer, /^HTTP\/1\.1 4\d\d/);
        if (adapter.name === 'node') assert.match(answer, /"code":"BAD_REQUEST"/);
      }
    }
    assert.equal((await send(port, 'GET', '/echo')).status, 200);
  });

  it(`[${adapter.name}] enforces body limits: declared, streamed (chunked), and per route`, async () => {
    assert.deepEqual((await send(port, 'POST', '/upload', { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(API_LIMIT) })).json(), { size: API_LIMIT });
    const declared = await send(port, 'POST', '/upload', { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(API_LIMIT + 1) }).catch((err: Error) => err);
    if (!(declared instanceof Error)) {
      assert.equal(declared.status, 413);
      assert.equal(declared.json().code, 'PAYLOAD_TOO_LARGE');
    }
    const chunked = await send(port, 'POST', '/upload', { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(API_LIMIT * 2), chunked: true }).catch((err: Error) => err);
    if (!(chunked instanceof Error)) assert.equal(chunked.status, 413);
    assert.ok(!(declared instanceof Error) || !(chunked instanceof Error), 'at least one over-limit body was answered 413 before the connection closed');
    assert.deepEqual((await send(port, 'POST', '/hook', { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(WEBHOOK_LIMIT) })).json(), { size: WEBHOOK_LIMIT });
    // The server is still well after refusing bodies.
    assert.equal((await send(port, 'GET', '/echo')).status, 200);
  });

  it(`[${adapter.name}] streams an exchange, reads its body within a limit, and routes other methods to *`, async () => {
    const stream = await send(port, 'GET', '/stream');
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /text\/event-stream/);
    // uWS may add `:` comment lines (its drain probes); a client ignores them.
    assert.equal(stream.text.replace(/^:\n\n/gm, ''), ': open\n\ndata: one\n\n');
    const read = await send(port, 'POST', '/stream?q=z', { body: 'x'.repeat(100) });
    assert.equal(read.text, 'read 100 z');
    const over = await send(port, 'POST', '/stream', { body: 'x'.repeat(101) });
    assert.equal(over.status, 413);
    const other = await send(port, 'PUT', '/stream');
    assert.equal(other.status, 405);
    assert.equal(other.headers.allow, 'GET, POST');
  });

  it(`[${adapter.name}] accepts, drives and closes a WebSocket; refuses a failed upgrade with the contract body`, async () => {
    const ws = await openSocket(port, '/ws/alice?call=1');
    const reply = nextMessage(ws);
    ws.send('hello');
    assert.equal(await reply, 'alice?call=1:hello');
    const closed = closeOf(ws);
    ws.send('bye');
    assert.equal(await closed, 1000);
    await eventually(() => recorded.closed.includes('alice?call=1'));
    assert.ok(recorded.opened.includes('alice?call=1'));

    const refused = await openSocket(port, '/ws/bob', { 'x-deny': '1' }).catch((err: { status: number; body: string }) => err);
    assert.equal((refused as { status: number }).status, 403);
    assert.equal(JSON.parse((refused as { body: string }).body).code, 'FORBIDDEN');
    assert.ok(!recorded.opened.includes('bob'));

    const big = await openSocket(port, '/ws/carol');
    const bigClosed = closeOf(big);
    big.send('x'.repeat(2048));
    // ws sends close 1009; uWS drops the connection (1006). Either way the socket is closed.
    assert.ok([1006, 1009].includes(await bigClosed), 'a frame over maxPayloadLength closes the socket');
    await eventually(() => recorded.closed.includes('carol'));
  });

  it(`[${adapter.name}] answers 503 starting on every kind of route until ready`, async () => {
    const early = await start(true);
    try {
      const res = await send(early.port, 'GET', '/echo');
      assert.equal(res.status, 503);
      assert.deepEqual(res.json(), { status: 'starting' });
      assert.equal(res.headers['retry-after'], '1');
      assert.equal((await send(early.port, 'GET', '/stream')).status, 503);
      const ws = await openSocket(early.port, '/ws/dave').catch((err: { status: number }) => err);
      assert.equal((ws as { status: number }).status, 503);
      early.ready();
      assert.equal((await send(early.port, 'GET', '/echo')).status, 200);
    } finally {
      await early.close(0);
    }
  });

  it(`[${adapter.name}] closes gracefully: refuses new connections, finishes requests in flight, then cuts streams and sockets`, async () => {
    const server = await start();
    const slow = send(server.port, 'GET', '/slow');
    await eventually(() => gate.release !== undefined && server.inFlight === 1);
    const ws = await openSocket(server.port, '/ws/erin');
    const wsClosed = closeOf(ws);
    const held = new Promise<string>((resolve) => {
      request({ host: '127.0.0.1', port: server.port, path: '/held', agent: false }, (res) => {
        res.resume();
        res.on('close', () => resolve('closed'));
        res.on('error', () => resolve('closed'));
      }).end();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = server.close(5000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await assert.rejects(send(server.port, 'GET', '/echo'), 'a new connection is refused while draining');
    gate.release!();
    assert.deepEqual((await slow).json(), { slow: 'done' });
    await closing;
    assert.equal(server.inFlight, 0);
    assert.equal(await held, 'closed');
    await wsClosed;
    await eventually(() => recorded.closed.includes('erin'));
  });
});

