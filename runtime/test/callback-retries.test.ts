import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Webhook } from 'standardwebhooks';
import { LocalLiveReach } from '../src/agents/live-reach.js';
import { DeliveryService, type CallbackPolicy } from '../src/delivery/delivery-service.js';
import { deliveryEventId } from '../src/delivery/agent-events.js';
import { RuntimeEvents } from '../src/events.js';
import { createLogger } from '../src/logger.js';
import { newSigningSecret } from '../src/provisioning/provisioner.js';
import { SecretBox } from '../src/secrets.js';
import type { MessageRecord } from '../src/store/repositories/messages.js';
import { openStore, type Store } from '../src/store/store.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { InProcessWorkQueue } from '../src/work/in-process-work-queue.js';
import { JetStreamWorkQueue } from '../src/work/jetstream-work-queue.js';
import type { WorkQueue } from '../src/work/work-queue.js';
import { eventually } from '../src/testing/eventually.js';

// Callback retries: each attempt is one run of the delivery's work item, on either work queue; in a
// cluster a node that dies mid-chain leaves the next node the next attempt, not a fresh chain.
const ATTEMPTS = 4;
const BASE_MS = 100;
const ACK_WAIT_MS = 1500;
// Doubling waits from BASE_MS after an immediate first attempt.
const policy: CallbackPolicy = { scheduleMs: [0, ...Array.from({ length: ATTEMPTS - 1 }, (_, i) => BASE_MS * 2 ** i)], timeoutMs: 2000, disableAfterMs: 86_400_000 };
const logger = createLogger({ level: 'silent', pretty: false });
const box = new SecretBox(randomBytes(32));
const secret = newSigningSecret();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: TestNatsServer;
let store: Store;
let dataDir: string;
const events = new RuntimeEvents();
const closers: (() => Promise<unknown>)[] = [];
before(async () => {
  server = await startNatsServer();
  dataDir = mkdtempSync(join(tmpdir(), 'sb-callback-retries-'));
  store = await openStore({ dataDir });
});
after(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await store.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Post {
  readonly at: number;
  /** The event id of a post whose signature verified; undefined otherwise. */
  readonly eventId: string | undefined;
}

/** An agent's callback endpoint on loopback: runs `beforeAnswer(n)`, then answers post `n` (from 1) with `status(n)`. */
async function startReceiver(status: (n: number) => number, beforeAnswer: (n: number) => Promise<void> = async () => undefined) {
  const posts: Post[] = [];
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let eventId: string | undefined;
      try {
        eventId = (new Webhook(secret).verify(Buffer.concat(chunks).toString('utf8'), headers) as { id: string }).id;
      } catch {
        eventId = undefined;
      }
      posts.push({ at: Date.now(), eventId });
      await beforeAnswer(posts.length);
      res.writeHead(status(posts.length)).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  closers.push(() => new Promise((r) => http.close(r)));
  return { url: `http://127.0.0.1:${(http.address() as { port: number }).port}/hooks`, posts };
}

let agents = 0;
/** An agent whose callback is `url`, and an inbound message for it, stored and pending. */
async function pendingMessage(url: string): Promise<MessageRecord> {
  const n = ++agents;
  const now = new Date().toISOString();
  const agentId = `retry-agent-${n}`;
  await store.agents.insert(store.db, {
    agentId, displayName: agentId, status: 'active', blockedChannels: [], callbackUrl: url, sealedSigningSecret: box.seal(secret),
    greeting: null, systemPrompt: null, voice: null, language: null, channels: [], createdAt: now, updatedAt: now,
  });
  const message: MessageRecord = {
    id: `msg_retry${n}`, agentId, channel: 'sms', direction: 'inbound', from: '+15550100001', to: '+15550100002', subject: null, body: 'hello',
    html: null, mediaUrls: [], externalId: `SMretry${n}`, status: 'received', segments: 1, cost: null, error: null, delivery: 'pending', createdAt: now, updatedAt: now,
  };
  assert.equal(await store.messages.insertInbound(message), true);
  return message;
}

interface Node {
  readonly connection: NatsConnection;
  readonly work: WorkQueue;
  /** The attempt of every work delivery this node ran. */
  readonly runs: number[];
}

/** A queue that records the attempt of every delivery its workers run. */
function recording(queue: WorkQueue, runs: number[]): WorkQueue {
  return {
    enqueue: (kind, id, payload) => queue.enqueue(kind, id, payload),
    pending: () => queue.pending(),
    process: (kind, handler, options) =>
      queue.process(kind, (item) => {
        if (kind === 'deliver') runs.push(item.attempt);
        return handler(item);
      }, options),
  };
}

/** A runtime node's delivery service, on its own NATS connection over the shared store. */
async function startNode(name: string, stream: string): Promise<Node> {
  const connection = await connect({ servers: server.url, name });
  const runs: number[] = [];
  const work = recording(new JetStreamWorkQueue({ connection, stream, subjectPrefix: `sbcb.${stream}`, ackWaitMs: ACK_WAIT_MS, logger }), runs);
  const delivery = new DeliveryService(store, box, events, logger, policy, work, new LocalLiveReach());
  await delivery.start();
  closers.push(async () => {
    // A node killed in the test is not stopped: its connection is gone.
    if (connection.isClosed()) return;
    await delivery.stop();
    await connection.close();
  });
  return { connection, work, runs };
}

const letters = (agentId: string) => store.db.query<{ reason: string; attempts: number }>('SELECT reason, attempts FROM dead_letters WHERE agent_id = ?', [agentId]);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('embedded callback retries on the in-process work queue', () => {
  async function embedded() {
    const runs: number[] = [];
    const delivery = new DeliveryService(store, box, events, logger, policy, recording(new InProcessWorkQueue({ logger }), runs), new LocalLiveReach());
    await delivery.start();
    closers.push(() => delivery.stop());
    return { delivery, runs };
  }

  it('retries a failed callback with doubling backoff until it is delivered', async () => {
    const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
    const message = await pendingMessage(receiver.url);
    const { delivery, runs } = await embedded();
    await delivery.schedule(message);
    await eventually(async () => (await store.messages.get(message.id))?.delivery === 'done', { message: 'delivered' });
    assert.deepEqual(runs, [1, 2, 3]);
    assert.equal(receiver.posts.length, 3);
    const gaps = receiver.posts.slice(1).map((p, i) => p.at - receiver.posts[i]!.at);
    gaps.forEach((gap, i) => assert.ok(gap >= BASE_MS * 2 ** i - 5, `retry ${i + 1} after ${gap} ms, backoff ${BASE_MS * 2 ** i} ms`));
    assert.ok(receiver.posts.every((p) => p.eventId === deliveryEventId(message.id)));
    assert.deepEqual(await letters(message.agentId), []);
  });

  it('makes exactly as many posts as the schedule has attempts, then one callback_failed dead letter', async () => {
    const receiver = await startReceiver(() => 503);
    const message = await pendingMessage(receiver.url);
    const { delivery, runs } = await embedded();
    await delivery.schedule(message);
    await eventually(async () => (await letters(message.agentId)).length > 0, { message: 'dead-lettered' });
    await sleep(2 * BASE_MS * 2 ** (ATTEMPTS - 1));
    assert.equal(receiver.posts.length, ATTEMPTS);
    assert.deepEqual(runs, range(1, ATTEMPTS));
    assert.deepEqual(await letters(message.agentId), [{ reason: 'callback_failed', attempts: ATTEMPTS }]);
  });

  it('recover() queues again what a process left pending, and it is delivered once', async () => {
    const receiver = await startReceiver(() => 200);
    const message = await pendingMessage(receiver.url);
    const { delivery } = await embedded();
    const recovered = await delivery.recover();
    assert.ok(recovered >= 1, `${recovered} recovered`);
    await eventually(async () => (await store.messages.get(message.id))?.delivery === 'done', { message: 'delivered' });
    await sleep(200);
    assert.equal(receiver.posts.length, 1);
  });
});

describe('cluster callback retries as work redeliveries', () => {
  it('a node dies between attempts: the next node makes the next attempt after the backoff, and the message is delivered', async () => {
    const FAILURES = 3;
    const receiver = await startReceiver((n) => (n <= FAILURES ? 500 : 200));
    const message = await pendingMessage(receiver.url);
    const a = await startNode('node-a1', 'CB1');
    await a.work.enqueue('deliver', message.id, { messageId: message.id });
    await eventually(() => receiver.posts.length === 2, { message: 'node A made two attempts' });
    // Time for A to hand attempt 2 back with its backoff; then A dies without a clean stop.
    await sleep(50);
    await a.connection.close();
    const b = await startNode('node-b1', 'CB1');
    await eventually(async () => (await store.messages.get(message.id))?.delivery === 'done', { message: 'delivered' });
    await eventually(async () => (await b.work.pending()) === 0, { message: 'the item left the stream' });
    // Long enough for any further retry (the longest backoff is BASE_MS * 2^(ATTEMPTS-1)) to show up.
    await sleep(2 * BASE_MS * 2 ** (ATTEMPTS - 1));
    assert.equal(receiver.posts.length, FAILURES + 1, 'one post per attempt, none repeated');
    assert.deepEqual(a.runs, [1, 2]);
    assert.deepEqual(b.runs, range(3, FAILURES + 1), 'node B went on from attempt 3');
    assert.ok(receiver.posts.every((p) => p.eventId === deliveryEventId(message.id)), 'every post was the signed event of this message');
    const gap = receiver.posts[2]!.at - receiver.posts[1]!.at;
    console.log(`# attempt 3 on node B came ${gap} ms after attempt 2 on node A (backoff ${2 * BASE_MS} ms, ack wait ${ACK_WAIT_MS} ms)`);
    assert.ok(gap >= 2 * BASE_MS - 5 && gap < ACK_WAIT_MS, `the backoff of attempt 2 carried over to node B: ${gap} ms`);
    assert.deepEqual(await letters(message.agentId), []);
  });

  it('a node dies during an attempt and every post fails: exactly as many posts as the schedule has attempts, then one callback_failed dead letter', async () => {
    let a: Node | undefined;
    // Node A dies while its second post is in flight: it holds the item, unacked, until the ack wait.
    const receiver = await startReceiver(
      () => 503,
      async (n) => {
        if (n === 2) await a!.connection.close();
      },
    );
    const message = await pendingMessage(receiver.url);
    const letterEvents: string[] = [];
    events.on('deadLetter', (e) => void (e.agentId === message.agentId && letterEvents.push(e.reason)));
    a = await startNode('node-a2', 'CB2');
    await a.work.enqueue('deliver', message.id, { messageId: message.id });
    await eventually(() => a.connection.isClosed(), { message: 'node A died during its second attempt' });
    const b = await startNode('node-b2', 'CB2');
    await eventually(async () => (await letters(message.agentId)).length > 0, { timeoutMs: ACK_WAIT_MS + 10_000, message: 'dead-lettered' });
    await eventually(async () => (await b.work.pending()) === 0, { message: 'the item left the stream' });
    await sleep(2 * BASE_MS * 2 ** (ATTEMPTS - 1));
    assert.equal(receiver.posts.length, ATTEMPTS, 'no restart from attempt 1, no second chain');
    assert.deepEqual(a.runs, [1, 2]);
    assert.deepEqual(b.runs, range(3, ATTEMPTS));
    assert.deepEqual(await letters(message.agentId), [{ reason: 'callback_failed', attempts: ATTEMPTS }]);
    assert.deepEqual(letterEvents, ['callback_failed']);
    assert.equal(await store.messages.pendingDelivery(message.id), undefined, 'the letter ends the delivery');
    assert.equal((await store.messages.get(message.id))?.delivery, 'pending', 'never marked delivered');
  });
});

describe('long waits are parked in the store, not held in the work queue', () => {
  // Waits over parkAfterMs leave the queue (JetStream counts a delayed redelivery against the
  // consumer's ack-pending limit); the parking sweep queues the event again when nearly due.
  const parking: CallbackPolicy = { scheduleMs: [0, 400, 400], timeoutMs: 2000, disableAfterMs: 86_400_000, parkAfterMs: 100, parkSweepMs: 50 };

  for (const kind of ['in-process', 'JetStream'] as const) {
    it(`${kind}: a message is delivered across two parked waits, with no work item held while parked`, async () => {
      const receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
      // A store of its own: the other tests' services, still running, sweep theirs for parked events too.
      const message = await pendingMessage(receiver.url);
      const outer = store;
      const dir = mkdtempSync(join(tmpdir(), 'sb-callback-parking-'));
      const own = await openStore({ dataDir: dir });
      closers.push(async () => {
        await own.close();
        rmSync(dir, { recursive: true, force: true });
      });
      await own.agents.insert(own.db, (await outer.agents.get(message.agentId))!);
      assert.equal(await own.messages.insertInbound(message), true);
      let work: WorkQueue;
      if (kind === 'in-process') {
        work = new InProcessWorkQueue({ logger });
      } else {
        const connection = await connect({ servers: server.url, name: 'parking' });
        closers.push(() => connection.close());
        work = new JetStreamWorkQueue({ connection, stream: 'CBPARK', subjectPrefix: 'sbcb.CBPARK', ackWaitMs: ACK_WAIT_MS, logger });
      }
      const delivery = new DeliveryService(own, box, events, logger, parking, work, new LocalLiveReach());
      await delivery.start();
      closers.push(() => delivery.stop());
      await delivery.schedule(message);
      await eventually(async () => receiver.posts.length === 1 && (await work.pending()) === 0, { message: 'the first post, then the event parked and its item gone' });
      const parked = await own.callbacks.event(deliveryEventId(message.id));
      assert.ok(parked?.parkedUntil, 'parked in the store');
      assert.equal(parked.attempts, 1);
      await eventually(async () => (await own.messages.get(message.id))?.delivery === 'done', { message: 'delivered' });
      assert.equal(receiver.posts.length, 3);
      const gaps = receiver.posts.slice(1).map((p, i) => p.at - receiver.posts[i]!.at);
      assert.ok(gaps.every((gap) => gap >= 400 - 5), `waits of at least 400 ms: ${gaps.join(', ')}`);
      assert.deepEqual((await own.callbacks.log(message.agentId, 10)).map((a) => a.outcome), ['delivered', 'retrying', 'retrying']);
      assert.equal((await own.callbacks.event(deliveryEventId(message.id)))?.parkedUntil, null);
    });
  }
});
