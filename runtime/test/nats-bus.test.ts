import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hasErrorCode } from '@switchboard/sdk';
import { pino } from 'pino';
import { NatsBus } from '../src/bus/nats-bus.js';
import { PROTOCOL_VERSION } from '../src/protocol/index.js';
import { describeBusConformance } from '../src/testing/index.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { eventually } from '../src/testing/eventually.js';

let server: TestNatsServer;
before(async () => {
  server = await startNatsServer();
});
after(async () => {
  await server.stop();
});

describeBusConformance('nats', async () => NatsBus.connect({ servers: server.url }));

describe('NatsBus across connections', () => {
  const buses: NatsBus[] = [];
  after(async () => {
    await Promise.all(buses.map((b) => b.close()));
  });
  const open = async () => {
    const bus = await NatsBus.connect({ servers: server.url });
    buses.push(bus);
    return bus;
  };

  it('shares a queue group between processes and answers across connections', async () => {
    const [caller, a, b] = [await open(), await open(), await open()];
    const served = { a: 0, b: 0 };
    a.subscribe('x.work', () => (served.a++, 'a'), { queue: 'w' });
    b.subscribe('x.work', () => (served.b++, 'b'), { queue: 'w' });
    await Promise.all([a.flush(), b.flush()]);
    const replies = await Promise.all(Array.from({ length: 40 }, () => caller.request<string>('x.work', {})));
    assert.equal(replies.length, 40);
    assert.equal(served.a + served.b, 40);
    assert.ok(served.a > 0 && served.b > 0, `both members served: ${JSON.stringify(served)}`);
  });

  it('a member leaving a queue group mid-stream answers every request already routed to it: none waits out its time-out', async () => {
    // A partition handed over is a member unsubscribing while requests stream in: those the server sent
    // it before it saw the UNSUB must still be answered (here, refused as a handed-over node refuses).
    const [caller, leaving, staying] = [await open(), await open(), await open()];
    let left = false;
    const leaver = leaving.subscribe('x.handover', () => {
      if (left) throw Object.assign(new Error('handed over'), { code: 'UNAVAILABLE' });
      return 'leaving';
    }, { queue: 'w' });
    staying.subscribe('x.handover', () => 'staying', { queue: 'w' });
    await Promise.all([leaving.flush(), staying.flush()]);
    const outcomes: string[] = [];
    setTimeout(() => {
      left = true;
      leaver.unsubscribe();
    }, 50);
    const requests = Array.from({ length: 400 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i % 100));
      outcomes.push(await caller.request<string>('x.handover', {}, { timeoutMs: 3000 }).catch((err: { code?: string }) => String(err.code)));
    });
    await Promise.all(requests);
    assert.deepEqual(outcomes.filter((o) => o === 'TIMEOUT'), [], 'a request routed to the leaving member went unanswered');
    assert.equal(outcomes.length, 400);
    assert.ok(outcomes.includes('staying') && outcomes.includes('leaving'), 'both members served');
  });

  it('fails pending requests with UNAVAILABLE when closed, and refuses new ones', async () => {
    const [caller, slow] = [await open(), await open()];
    slow.subscribe('x.never', () => new Promise(() => undefined));
    await slow.flush();
    const pending = caller.request('x.never', {}, { timeoutMs: 5000 });
    await caller.close();
    await assert.rejects(pending, (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
    await assert.rejects(caller.request('x.never', {}), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
    assert.throws(() => caller.publish('x.never', {}), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
  });
});

describe('NatsBus when NATS goes away', () => {
  it('answers a waiting request with TIMEOUT at once when the connection drops, refuses new ones with UNAVAILABLE, and requests again once back', async () => {
    const own = await startNatsServer();
    const port = Number(new URL(own.url).port);
    const caller = await NatsBus.connect({ servers: own.url, reconnectTimeWait: 100 });
    const server = await NatsBus.connect({ servers: own.url, reconnectTimeWait: 100 });
    let again: TestNatsServer | undefined;
    try {
      server.subscribe('x.slow', () => new Promise(() => undefined));
      server.subscribe('x.echo', (data) => data);
      await server.flush();
      // Its refusal may come before the server is even gone: caught at once, checked below.
      const waiting = caller.request('x.slow', {}, { timeoutMs: 30_000 }).then(() => assert.fail('answered'), (err: unknown) => err);
      const asked = Date.now();
      await own.stop({ signal: 'SIGKILL' });
      const refusal = await waiting;
      assert.ok(hasErrorCode(refusal, 'TIMEOUT') && /dropped/.test((refusal as { message: string }).message), String(refusal));
      assert.ok(Date.now() - asked < 20_000, 'the waiting request was answered when the connection dropped, not at its time-out');
      await assert.rejects(caller.request('x.echo', {}), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
      again = await startNatsServer({ port });
      const answer = await eventually(() => caller.request('x.echo', { n: 1 }, { timeoutMs: 1000 }), { timeoutMs: 20_000, intervalMs: 100, message: 'an answer after NATS came back' });
      assert.deepEqual(answer, { n: 1 });
    } finally {
      // Clients first, then their server: a server stopped under them sends them reconnecting mid-close.
      await caller.close();
      await server.close();
      await again?.stop();
    }
  });
});

describe('startNatsServer', () => {
  it('fails loudly, saying how to install, when the binary is missing', async () => {
    await assert.rejects(startNatsServer({ bin: '/nonexistent/nats-server' }), /apt-get install -y nats-server/);
  });
});

describe('NatsBus protocol versions (rolling upgrades)', () => {
  const buses: NatsBus[] = [];
  const logged: { peerProtocol: string | null; msg: string }[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line) as { peerProtocol: string | null; msg: string }) });
  after(async () => {
    await Promise.all(buses.map((b) => b.close()));
  });
  const open = async (protocolVersion?: number) => {
    const bus = await NatsBus.connect({ servers: server.url }, { logger, ...(protocolVersion === undefined ? {} : { protocolVersion }) });
    buses.push(bus);
    return bus;
  };

  it('serves a peer one version older or newer, both ways', async () => {
    const [own, older, newer] = [await open(), await open(PROTOCOL_VERSION + 1), await open(PROTOCOL_VERSION + 2)];
    own.subscribe('v.echo', (data) => data);
    older.subscribe('v.older', (data) => data);
    await Promise.all([own.flush(), older.flush()]);
    // `older` plays version N+1 meeting N (and `newer` N+2 meeting N+1): each pair is one version apart.
    assert.deepEqual(await older.request('v.echo', { n: 1 }), { n: 1 });
    assert.deepEqual(await own.request('v.older', { n: 2 }), { n: 2 });
    assert.deepEqual(await newer.request('v.older', { n: 3 }), { n: 3 });
  });

  it('refuses a peer two versions away or unversioned, unread, and logs both versions', async () => {
    const [own, far] = [await open(), await open(PROTOCOL_VERSION + 2)];
    let handled = 0;
    own.subscribe('v.far', () => ++handled);
    far.subscribe('v.back', () => ++handled);
    await Promise.all([own.flush(), far.flush()]);
    // Each side refuses the other: the request is not read, and the refusal's reply is refused in turn.
    await assert.rejects(far.request('v.far', {}), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE') && (err as { message: string }).message.includes(`speaks protocol ${PROTOCOL_VERSION}; this process speaks protocol ${PROTOCOL_VERSION + 2}`));
    await assert.rejects(own.request('v.back', {}), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE') && (err as { message: string }).message.includes(`speaks protocol ${PROTOCOL_VERSION + 2}; this process speaks protocol ${PROTOCOL_VERSION}`));
    assert.equal(handled, 0, 'a request from a peer two versions away was read');
    // A publish from a release before versions (a raw connection, no header) is dropped unread.
    const raw = (await open()).connection;
    raw.publish('v.far', new TextEncoder().encode('{}'));
    await raw.flush();
    await eventually(() => logged.some((l) => l.peerProtocol === null), { message: 'a log line for the unversioned peer' });
    assert.equal(handled, 0);
    assert.ok(logged.some((l) => l.peerProtocol === String(PROTOCOL_VERSION + 2) && /Upgrade or roll back/.test(l.msg)), JSON.stringify(logged));
  });
});
