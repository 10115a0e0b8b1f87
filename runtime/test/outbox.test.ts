import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AGENT_SUBJECT } from '../src/actors/actor-system.js';
import { AgentClient } from '../src/agents/agent-client.js';
import { MemoryBus } from '../src/bus/memory-bus.js';
import { createLogger } from '../src/logger.js';
import { Outbox } from '../src/outbox/outbox.js';
import type { MessageRecord } from '../src/store/repositories/messages.js';
import { openStore, type Store } from '../src/store/store.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { InProcessWorkQueue } from '../src/work/in-process-work-queue.js';
import { JetStreamWorkQueue } from '../src/work/jetstream-work-queue.js';
import type { WorkQueue } from '../src/work/work-queue.js';
import { eventually } from '../src/testing/eventually.js';

// A send's stored message, with no outcome yet, is its journal: the outbox holds in memory only the
// sends in flight here. One left unsent here, or by the node that held the agents before a takeover,
// is offered to the agent's actor (`resumeSend`) after the resume delay, and again while still in
// flight; the `send` items older nodes journal are finished as before, on either work queue.
const logger = createLogger({ level: 'silent', pretty: false });
const RESUME_AFTER_MS = 300;
const RECHECK_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: TestNatsServer;
let connection: NatsConnection;
let store: Store;
let dataDir: string;
before(async () => {
  server = await startNatsServer();
  connection = await connect({ servers: server.url, name: 'outbox' });
  dataDir = mkdtempSync(join(tmpdir(), 'sb-outbox-'));
  store = await openStore({ dataDir });
});
after(async () => {
  await connection.close();
  await server.stop();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

let streams = 0;
const adapters: [string, () => WorkQueue][] = [
  ['in-process', () => new InProcessWorkQueue({ logger })],
  [
    'JetStream',
    () => {
      const stream = `OUTBOX${++streams}`;
      return new JetStreamWorkQueue({ connection, stream, subjectPrefix: `sbout.${stream}`, ackWaitMs: 2000, logger });
    },
  ],
];

/** An outbox whose agents answer `resumeSend` with `answer(messageId)`, recording each ask. */
async function outbox(answer: (messageId: string) => string, queue: WorkQueue = new InProcessWorkQueue({ logger })) {
  const bus = new MemoryBus();
  const asked: { messageId: string; at: number }[] = [];
  bus.subscribe(`${AGENT_SUBJECT}.*.resumeSend`, (data) => {
    const { messageId } = data as { messageId: string };
    asked.push({ messageId, at: Date.now() });
    return { outcome: answer(messageId) };
  });
  const box = new Outbox({ queue, agents: new AgentClient(bus, 2000), store, logger, resumeAfterMs: RESUME_AFTER_MS, recheckMs: RECHECK_MS, sweepAgeMs: 0 });
  await box.start();
  return { box, queue, asked, stop: () => box.stop() };
}

/** Stores an outbound message of `agentId` as a send's first commit does: no outcome yet, or sent. */
async function stored(id: string, agentId: string, externalId: string | null = null): Promise<void> {
  const now = new Date().toISOString();
  const message: MessageRecord = {
    id,
    agentId,
    channel: 'sms',
    direction: 'outbound',
    from: '+12025550100',
    to: '+14155550142',
    subject: null,
    body: `hello ${id}`,
    html: null,
    mediaUrls: [],
    externalId,
    status: externalId ? 'sent' : 'queued',
    segments: 1,
    cost: null,
    error: null,
    delivery: 'done',
    createdAt: now,
    updatedAt: now,
  };
  await store.db.execute(store.messages.insertOutboundStatement(message, []).sql, store.messages.insertOutboundStatement(message, []).params);
}

/** Every ask's gap after `from` and after the ask before, checked against the resume delay and the recheck. */
function assertSpaced(asked: { at: number }[], from: number): void {
  assert.ok(asked[0]!.at - from >= RESUME_AFTER_MS - 5, `first asked after ${asked[0]!.at - from} ms`);
  for (let i = 1; i < asked.length; i++) assert.ok(asked[i]!.at - asked[i - 1]!.at >= RECHECK_MS - 5, `asked again after ${asked[i]!.at - asked[i - 1]!.at} ms`);
}

describe('Outbox', () => {
  it('a send that ends with its outcome stored costs nothing beyond memory: nothing journaled, nobody asked', async () => {
    const { box, queue, asked, stop } = await outbox(() => 'settled');
    try {
      const done = box.begin({ agentId: 'a1', messageId: 'msg_done' });
      assert.equal(box.has('msg_done'), true);
      assert.equal(await queue.pending(), 0);
      done(false);
      assert.equal(box.has('msg_done'), false);
      await sleep(RESUME_AFTER_MS + 300);
      assert.deepEqual(asked, []);
    } finally {
      await stop();
    }
  });

  it('a send left unsent here (a write failed, or the agent moved) is offered after the resume delay, and again while in flight', async () => {
    let inFlight = 2;
    const { box, asked, stop } = await outbox(() => (inFlight-- > 0 ? 'in_flight' : 'sent'));
    try {
      const started = Date.now();
      box.begin({ agentId: 'a2', messageId: 'msg_left' })(true);
      await eventually(() => asked.length === 3, { message: 'finished by the agent\'s actor' });
      await sleep(RECHECK_MS + 100);
      assert.equal(asked.length, 3, 'not asked again once finished');
      assert.ok(asked.every((a) => a.messageId === 'msg_left'));
      assertSpaced(asked, started);
    } finally {
      await stop();
    }
  });

  it('a takeover finishes, after the resume delay, the unsent sends of the agents taken over: not those of other agents, not one in flight here, not one sent', async () => {
    await stored('msg_orphan_1', 'taken-1');
    await stored('msg_orphan_2', 'taken-2');
    await stored('msg_other', 'elsewhere-1');
    await stored('msg_here', 'taken-1');
    await stored('msg_sent', 'taken-2', 'SM1');
    const { box, asked, stop } = await outbox(() => 'adopted');
    try {
      const here = box.begin({ agentId: 'taken-1', messageId: 'msg_here' });
      const takenAt = Date.now();
      box.takeOver((agentId) => agentId.startsWith('taken-'));
      await sleep(RESUME_AFTER_MS - 100);
      assert.equal(asked.length, 0, 'nobody asked before the resume delay');
      await eventually(() => asked.length === 2, { message: 'the sends the node before left unsent finished' });
      assert.deepEqual(asked.map((a) => a.messageId).sort(), ['msg_orphan_1', 'msg_orphan_2']);
      assert.ok(asked.every((a) => a.at - takenAt >= RESUME_AFTER_MS - 5), `asked ${asked.map((a) => a.at - takenAt).join(', ')} ms after the takeover`);
      here(false);
      await sleep(RESUME_AFTER_MS);
      assert.equal(asked.length, 2, 'asked once each');
    } finally {
      await stop();
      await store.db.execute("DELETE FROM messages WHERE id LIKE 'msg_%'");
    }
  });

  it('takeovers close together are swept with one read, none before its own resume delay', async () => {
    await stored('msg_p1', 'p1-agent');
    await stored('msg_p2', 'p2-agent');
    const { box, asked, stop } = await outbox(() => 'sent');
    let reads = 0;
    const unsentBefore = store.messages.unsentBefore.bind(store.messages);
    store.messages.unsentBefore = (before, limit) => {
      reads++;
      return unsentBefore(before, limit);
    };
    try {
      box.takeOver((agentId) => agentId === 'p1-agent');
      await sleep(50);
      const secondAt = Date.now();
      box.takeOver((agentId) => agentId === 'p2-agent');
      await eventually(() => asked.length === 2, { message: 'both takeovers swept' });
      assert.equal(reads, 1);
      assert.ok(asked.every((a) => a.at - secondAt >= RESUME_AFTER_MS - 5));
    } finally {
      store.messages.unsentBefore = unsentBefore;
      await stop();
      await store.db.execute("DELETE FROM messages WHERE id LIKE 'msg_%'");
    }
  });
});

for (const [name, create] of adapters) {
  describe(`Outbox on the ${name} work queue`, () => {
    it('a `send` item an older node journaled comes back after the resume delay, and again while still in flight', async () => {
      let inFlight = 2;
      const { queue, asked, stop } = await outbox(() => (inFlight-- > 0 ? 'in_flight' : 'sent'), create());
      try {
        const started = Date.now();
        // What a node of v0.41.0 enqueues as it begins a send; its process died before removing it.
        await queue.enqueue('send', 'msg_journaled', { agentId: 'a3', messageId: 'msg_journaled' });
        await eventually(() => asked.length === 3, { message: 'finished elsewhere' });
        await eventually(async () => (await queue.pending()) === 0, { message: 'the journal entry acked' });
        assert.ok(asked.every((a) => a.messageId === 'msg_journaled'));
        assertSpaced(asked, started);
      } finally {
        await stop();
      }
    });
  });
}
