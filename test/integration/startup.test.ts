import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { startTestGateway } from '../helpers/gateway.js';

interface Probe {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** One route of each kind: liveness, REST, admin, MCP (both transports) and the voice WebSocket upgrade. */
const PROBES: Probe[] = [
  { method: 'GET', path: '/health' },
  { method: 'POST', path: '/api/v1/provision', headers: { 'content-type': 'application/json' }, body: '{"displayName":"x","channels":["sms"]}' },
  { method: 'GET', path: '/admin/api/my-token' },
  { method: 'GET', path: '/sse?token=x' },
  { method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json' }, body: '{}' },
  {
    method: 'GET',
    path: '/webhooks/agent/voice-ws',
    headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
  },
];

interface Answer {
  readonly probe: string;
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

/** Sends a probe; undefined when the port is not open yet. */
function send(port: number, probe: Probe): Promise<Answer | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: probe.method, path: probe.path, headers: probe.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ probe: `${probe.method} ${probe.path}`, status: res.statusCode!, retryAfter: res.headers['retry-after'], body }));
      res.on('error', () => resolve(undefined));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ probe: `${probe.method} ${probe.path}`, status: res.statusCode!, retryAfter: undefined, body: '' });
    });
    req.on('error', () => resolve(undefined));
    req.end(probe.body);
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('start-up window', () => {
  it('answers every route 503 {"status":"starting"} with Retry-After while starting, never 404', async () => {
    const port = await freePort();
    let started = false;
    const starting = startTestGateway({ PORT: port }).finally(() => (started = true));
    const early: Answer[] = [];
    const probing = (async () => {
      while (!started) {
        const answers = await Promise.all(PROBES.map((probe) => send(port, probe)));
        // Answers that raced with readiness are left out: only the window before it is judged here.
        if (!started) early.push(...answers.filter((a): a is Answer => a !== undefined));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const t = await starting;
    await probing;
    try {
      assert.ok(early.length >= PROBES.length, `the port was open before the routes were ready (${early.length} answers seen)`);
      for (const answer of early) {
        assert.notEqual(answer.status, 404, `${answer.probe} answered 404 while starting`);
        assert.equal(answer.status, 503, `${answer.probe}: ${answer.body}`);
        assert.deepEqual(JSON.parse(answer.body), { status: 'starting' }, answer.probe);
        assert.ok(Number(answer.retryAfter) > 0, `${answer.probe} has Retry-After`);
      }
      assert.deepEqual(new Set(early.map((a) => a.probe)), new Set(PROBES.map((p) => `${p.method} ${p.path}`)), 'every kind of route was probed');
      const health = await send(port, PROBES[0]!);
      assert.equal(health?.status, 200, 'ready once started');
      assert.equal(JSON.parse(health.body).status, 'ok');
    } finally {
      await t.close();
    }
  });
});
