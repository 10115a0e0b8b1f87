import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '@switchboard/runtime';
import { collectBody, RequestGate, type BodyOutcome, type GateRequest, type GatedApp } from '../../src/http/request-gate.js';
import type { ConnectionLimits } from '../../src/http/connection-limits.js';
import type { HttpRequest, HttpResult } from '../../src/http/types.js';

// The request gate on its own, without a socket: what both HTTP adapters decide through it
// (adapter.test.ts checks each adapter's translation of its socket on a real port).

const logger = createLogger({ level: 'silent', pretty: false });
const API_LIMIT = 10;
const WEBHOOK_LIMIT = 100;

interface Answer {
  result: HttpResult;
  closeConnection: boolean;
}

/** A socket as the gate sees one: what it answered, and a body fed by hand. */
function fakeSocket(head: { method?: string; path?: string; headers?: Record<string, string>; peer?: string } = {}) {
  const answers: Answer[] = [];
  let gone: (() => void) | undefined;
  let feed: { onChunk: (chunk: Buffer) => void; onEnd: () => void } | undefined;
  let stopped = false;
  const request: GateRequest = {
    method: head.method ?? 'GET',
    path: head.path ?? '/api',
    queryString: 'q=1',
    headers: head.headers ?? {},
    peer: head.peer ?? '10.0.0.1',
    answer: (result, closeConnection) => void answers.push({ result, closeConnection }),
    onGone: (listener) => {
      gone = listener;
    },
    body: (onChunk, onEnd) => {
      feed = { onChunk, onEnd };
      return () => {
        stopped = true;
      };
    },
  };
  return {
    request,
    answers,
    goAway: () => gone!(),
    send: (text: string) => feed!.onChunk(Buffer.from(text)),
    end: () => feed!.onEnd(),
    get reading() {
      return feed !== undefined && !stopped;
    },
  };
}

/** An app whose handler answers when the test says so, recording what it was given. */
function heldApp(fail?: Error) {
  const seen: HttpRequest[] = [];
  const waiting: Array<() => void> = [];
  const app: GatedApp = {
    bodyLimit: (_method, path) => (path === '/hook' ? WEBHOOK_LIMIT : API_LIMIT),
    handle: (request) => {
      seen.push(request);
      return new Promise<HttpResult>((resolve, reject) => waiting.push(() => (fail ? reject(fail) : resolve({ status: 200, body: { ok: true } }))));
    },
  };
  return { app, seen, finishAll: () => waiting.splice(0).forEach((finish) => finish()) };
}

const limits = (overrides: Partial<ConnectionLimits> = {}): ConnectionLimits => ({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 10_000,
  maxConnectionsPerAddress: 0,
  ...overrides,
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('request gate', () => {
  it('answers 503 starting until ready, closing the connection only when a body is left unread', async () => {
    const { app, seen, finishAll } = heldApp();
    const gate = new RequestGate(app, { starting: true, logger });
    const get = fakeSocket();
    gate.serve(get.request, false);
    assert.equal(get.answers.length, 1);
    assert.equal(get.answers[0]!.result.status, 503);
    assert.deepEqual(JSON.parse(get.answers[0]!.result.body as string), { status: 'starting' });
    assert.equal(get.answers[0]!.result.headers?.['retry-after'], '1');
    assert.equal(get.answers[0]!.closeConnection, false);
    assert.equal(gate.refusal('POST')?.closeConnection, true, 'an unread body cannot stay on the connection');
    assert.equal(gate.inFlight, 0);
    assert.equal(seen.length, 0);

    gate.ready();
    assert.equal(gate.refusal('GET'), undefined);
    const later = fakeSocket();
    gate.serve(later.request, false);
    assert.equal(gate.inFlight, 1);
    finishAll();
    await settle();
    assert.deepEqual(later.answers, [{ result: { status: 200, body: { ok: true } }, closeConnection: false }]);
    assert.equal(gate.inFlight, 0);
  });

  it('hands the app a plain request with the client address the proxies vouch for', async () => {
    const { app, seen, finishAll } = heldApp();
    const gate = new RequestGate(app, { logger, clientAddress: (peer, forwardedFor) => `${peer}|${forwardedFor ?? ''}` });
    const socket = fakeSocket({ method: 'POST', headers: { 'content-length': '5', 'x-forwarded-for': '1.2.3.4' } });
    gate.serve(socket.request, false);
    socket.send('he');
    socket.send('llo');
    socket.end();
    assert.equal(seen.length, 1);
    const { signal, ...plain } = seen[0]!;
    assert.ok(signal instanceof AbortSignal);
    assert.deepEqual({ ...plain, rawBody: plain.rawBody.toString() }, {
      method: 'POST',
      path: '/api',
      queryString: 'q=1',
      headers: { 'content-length': '5', 'x-forwarded-for': '1.2.3.4' },
      rawBody: 'hello',
      remoteAddress: '10.0.0.1|1.2.3.4',
    });
    finishAll();
    await settle();
    assert.equal(socket.answers[0]!.result.status, 200);
  });

  it('does not read a body a bodyless method does not declare', () => {
    const { app, seen } = heldApp();
    const gate = new RequestGate(app, { logger });
    const socket = fakeSocket({ method: 'DELETE' });
    gate.serve(socket.request, false);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.rawBody.length, 0);
    assert.equal(socket.reading, false);
  });

  it('refuses a body over the route limit with 413, declared or streamed, and releases the request', () => {
    const { app, seen } = heldApp();
    const gate = new RequestGate(app, { logger });
    const declared = fakeSocket({ method: 'POST', headers: { 'content-length': String(API_LIMIT + 1) } });
    gate.serve(declared.request, false);
    assert.equal(declared.answers[0]!.result.status, 413);
    assert.equal((declared.answers[0]!.result.body as { code: string }).code, 'PAYLOAD_TOO_LARGE');
    assert.equal(declared.answers[0]!.closeConnection, true);
    assert.equal(declared.reading, false, 'a declared body over the limit is never read');

    const streamed = fakeSocket({ method: 'POST', headers: { 'transfer-encoding': 'chunked' } });
    gate.serve(streamed.request, false);
    streamed.send('x'.repeat(API_LIMIT));
    assert.equal(streamed.answers.length, 0, 'exactly the limit is allowed');
    streamed.send('x');
    assert.equal(streamed.answers[0]!.result.status, 413);
    assert.match((streamed.answers[0]!.result.body as { error: string }).error, new RegExp(`${API_LIMIT}-byte limit`));
    assert.equal(streamed.reading, false, 'reading stops at the first byte over');

    const hook = fakeSocket({ method: 'POST', path: '/hook', headers: { 'content-length': String(WEBHOOK_LIMIT) } });
    gate.serve(hook.request, false);
    hook.send('x'.repeat(WEBHOOK_LIMIT));
    hook.end();
    assert.equal(seen.length, 1, 'the webhook limit is the route’s own');
    assert.equal(gate.inFlight, 1);
  });

  it('answers 408 to a body that does not arrive within the request time-out', async () => {
    const { app, seen } = heldApp();
    const gate = new RequestGate(app, { logger, limits: limits({ requestTimeoutMs: 50 }) });
    const socket = fakeSocket({ method: 'POST', headers: { 'content-length': '5' } });
    gate.serve(socket.request, false);
    socket.send('he');
    assert.equal(gate.inFlight, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(socket.answers.length, 1);
    assert.equal(socket.answers[0]!.result.status, 408);
    assert.equal((socket.answers[0]!.result.body as { code: string }).code, 'BAD_REQUEST');
    assert.equal(socket.answers[0]!.closeConnection, true);
    assert.equal(gate.inFlight, 0);
    assert.equal(seen.length, 0);
  });

  it('releases a request whose client goes away while its body arrives, and never answers it', async () => {
    const { app, seen } = heldApp();
    const gate = new RequestGate(app, { logger, limits: limits({ requestTimeoutMs: 50 }) });
    const socket = fakeSocket({ method: 'POST', headers: { 'content-length': '5' } });
    gate.serve(socket.request, false);
    socket.goAway();
    assert.equal(gate.inFlight, 0);
    assert.equal(socket.reading, false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(socket.answers.length, 0, 'no 408 for a client that is gone');
    assert.equal(seen.length, 0);
  });

  it("tells a handler through the request's signal when its client goes away, and every handler when the gate drains", async () => {
    const { app, seen, finishAll } = heldApp();
    const gate = new RequestGate(app, { logger });
    const leaving = fakeSocket();
    const staying = fakeSocket();
    gate.serve(leaving.request, false);
    gate.serve(staying.request, false);
    const [left, stayed] = seen.map((r) => r.signal!);
    assert.deepEqual([left!.aborted, stayed!.aborted], [false, false]);
    leaving.goAway();
    assert.deepEqual([left!.aborted, stayed!.aborted], [true, false], 'only the request whose client left');
    const drained = gate.drain(10_000);
    assert.equal(stayed!.aborted, true, 'a waiting handler answers now rather than holding the drain');
    finishAll();
    await drained;
    assert.equal(gate.inFlight, 0);
  });

  it('leaves an answered request\'s signal alone when its connection reports the close that follows every answer (node:http)', async () => {
    const { app, seen, finishAll } = heldApp();
    const gate = new RequestGate(app, { logger });
    const socket = fakeSocket();
    gate.serve(socket.request, false);
    finishAll();
    await settle();
    assert.equal(socket.answers.length, 1);
    socket.goAway();
    assert.equal(seen[0]!.signal!.aborted, false, 'nothing to stop: the handler answered');
    assert.equal(gate.inFlight, 0);
  });

  it('keeps a request in flight until its handler ends, even when the client left, and does not answer it', async () => {
    const { app, finishAll } = heldApp();
    const gate = new RequestGate(app, { logger });
    const socket = fakeSocket();
    gate.serve(socket.request, false);
    socket.goAway();
    assert.equal(gate.inFlight, 1, 'the handler still runs');
    finishAll();
    await settle();
    assert.equal(gate.inFlight, 0);
    assert.equal(socket.answers.length, 0);
  });

  it('answers an app that throws with the contract error body', async () => {
    const { app, finishAll } = heldApp(new Error('boom'));
    const gate = new RequestGate(app, { logger });
    const socket = fakeSocket();
    gate.serve(socket.request, false);
    finishAll();
    await settle();
    assert.equal(socket.answers[0]!.result.status, 500);
    assert.equal((socket.answers[0]!.result.body as { code: string }).code, 'INTERNAL');
    assert.equal(gate.inFlight, 0);
  });

  it('holds an address slot per exchange when asked, refusing past the cap with 429', async () => {
    const { app, finishAll } = heldApp();
    const gate = new RequestGate(app, { logger, limits: limits({ maxConnectionsPerAddress: 2 }) });
    const first = fakeSocket();
    const second = fakeSocket();
    const third = fakeSocket();
    const elsewhere = fakeSocket({ peer: '10.0.0.2' });
    for (const socket of [first, second, third, elsewhere]) gate.serve(socket.request, true);
    assert.equal(third.answers[0]!.result.status, 429);
    assert.equal((third.answers[0]!.result.body as { code: string }).code, 'RATE_LIMITED');
    assert.equal(third.answers[0]!.result.headers?.['retry-after'], '1');
    assert.equal(third.answers[0]!.closeConnection, true);
    assert.equal(gate.inFlight, 3);
    finishAll();
    await settle();
    assert.equal(gate.inFlight, 0);
    const again = fakeSocket();
    gate.serve(again.request, true);
    assert.equal(again.answers.length, 0, 'the slots were released with the answers');
    // Without `holdsAddress` the connection holds the slot (node:http), and the request counts nothing.
    assert.equal(gate.admitAddress('10.0.0.1'), undefined);
    assert.equal(gate.admitAddress('10.0.0.1')?.result.status, 429);
    gate.releaseAddress('10.0.0.1');
    assert.equal(gate.admitAddress('10.0.0.1'), undefined);
  });

  it('drains: refuses every new exchange with 503, and waits for requests in flight', async () => {
    const { app, finishAll } = heldApp();
    const gate = new RequestGate(app, { logger });
    const held = fakeSocket();
    gate.serve(held.request, false);
    let drained = false;
    const draining = gate.drain(10_000).then(() => (drained = true));
    assert.equal(gate.draining, true);
    const late = fakeSocket();
    gate.serve(late.request, false);
    assert.equal(late.answers[0]!.result.status, 503);
    assert.equal((late.answers[0]!.result.body as { code: string }).code, 'UNAVAILABLE');
    assert.equal(late.answers[0]!.closeConnection, true);
    assert.equal(gate.refusal('GET')?.result.status, 503, 'streams and upgrades are refused too');
    await settle();
    assert.equal(drained, false, 'a request in flight holds the drain');
    finishAll();
    await draining;
    assert.equal(held.answers[0]!.result.status, 200);
    assert.equal(gate.inFlight, 0);
  });

  it('closes a listener: stops accepting at once, cuts what is left only after the drain', async () => {
    const { app, finishAll } = heldApp();
    const gate = new RequestGate(app, { logger, starting: true });
    const steps: string[] = [];
    const listener = gate.listener(1234, { stopAccepting: () => void steps.push('stop accepting'), cut: () => void steps.push('cut') });
    assert.equal(listener.port, 1234);
    listener.ready();
    gate.serve(fakeSocket().request, false);
    assert.equal(listener.inFlight, 1);
    const closing = listener.close(10_000);
    await settle();
    assert.deepEqual(steps, ['stop accepting']);
    finishAll();
    await closing;
    assert.deepEqual(steps, ['stop accepting', 'cut']);
    assert.equal(listener.inFlight, 0);
  });

  it('bounds the drain by its grace', async () => {
    const { app } = heldApp();
    const gate = new RequestGate(app, { logger });
    gate.serve(fakeSocket().request, false);
    const started = Date.now();
    await gate.drain(100);
    assert.ok(Date.now() - started < 5000);
    assert.equal(gate.inFlight, 1, 'what is left is the adapter’s to cut');
    await gate.drain(0);
  });
});

describe('collectBody', () => {
  it('collects to the end, stops at the limit, and says nothing once stopped', () => {
    const outcomes: BodyOutcome[] = [];
    let feed!: { onChunk: (chunk: Buffer) => void; onEnd: () => void };
    const source = (onChunk: (chunk: Buffer) => void, onEnd: () => void) => {
      feed = { onChunk, onEnd };
      return () => undefined;
    };
    collectBody(source, 4, Infinity, (outcome) => outcomes.push(outcome));
    feed.onChunk(Buffer.from('ab'));
    feed.onChunk(Buffer.from('cd'));
    feed.onEnd();
    assert.deepEqual(outcomes.map(String), ['abcd']);

    collectBody(source, 4, Infinity, (outcome) => outcomes.push(outcome));
    feed.onChunk(Buffer.from('abcde'));
    feed.onEnd();
    assert.deepEqual(outcomes.slice(1), ['too large']);

    const stop = collectBody(source, 4, 20, (outcome) => outcomes.push(outcome));
    stop();
    feed.onEnd();
    assert.equal(outcomes.length, 2);
  });
});
