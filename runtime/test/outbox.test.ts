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
import { openStore, type Store } from '../src/store/store.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { InProcessWorkQueue } from '../src/work/in-process-work-queue.js';
import { JetStreamWorkQueue } from '../src/work/jetstream-work-queue.js';
import type { WorkQueue } from '../src/work/work-queue.js';
import { eventually } from '../src/testing/eventually.js';

// The send outbox runs the same code on either work queue: a send journaled and finished is removed;
// one whose process died comes back after the resume delay to the agent's actor (`resumeSend`), which
// is asked again while the send is still in flight somewhere.
const logger = createLogger({ level: 'silent', pretty: false });
const RESUME_AFTER_MS = 300;
const RECHECK_MS = 200;

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

for (const [name, create] of adapters) {
  describe(`Outbox on the ${name} work queue`, () => {
    /** An outbox whose agents answer `resumeSend` with `answer(messageId)`, recording each ask. */
    async function outbox(answer: (messageId: string) => string) {
      const bus = new MemoryBus();
      const asked: { messageId: string; at: number }[] = [];
      bus.subscribe(`${AGENT_SUBJECT}.*.resumeSend`, (data) => {
        const { messageId } = data as { messageId: string };
        asked.push({ messageId, at: Date.now() });
        return { outcome: answer(messageId) };
      });
      const queue = create();
      const box = new Outbox({ queue, agents: new AgentClient(bus, 2000), store, logger, resumeAfterMs: RESUME_AFTER_MS, recheckMs: RECHECK_MS, sweepAgeMs: 0 });
      await box.start();
      return { box, queue, asked, stop: () => box.stop() };
    }

    it('journals a send while it is in flight and removes it once done; nobody is asked to finish it', async () => {
      const { box, queue, asked, stop } = await outbox(() => 'settled');
      try {
        const done = await box.begin({ agentId: 'a1', messageId: 'msg_done' });
        assert.equal(box.has('msg_done'), true);
        assert.equal(await queue.pending(), 1);
        done(true);
        assert.equal(box.has('msg_done'), false);
        await eventually(async () => (await queue.pending()) === 0, { message: 'the journal entry removed' });
        await new Promise((r) => setTimeout(r, RESUME_AFTER_MS + 300));
        assert.deepEqual(asked, []);
      } finally {
        await stop();
      }
    });

    it('a journaled send never finished comes back after the resume delay, and again while still in flight', async () => {
      let inFlight = 2;
      const { box, queue, asked, stop } = await outbox(() => (inFlight-- > 0 ? 'in_flight' : 'sent'));
      try {
        const started = Date.now();
        // Its process lost the agent: the send ends here unsettled, so its journal entry stays.
        const done = await box.begin({ agentId: 'a2', messageId: 'msg_orphan' });
        done(false);
        await eventually(() => asked.length === 3, { message: 'finished elsewhere' });
        await eventually(async () => (await queue.pending()) === 0, { message: 'the journal entry acked' });
        assert.ok(asked.every((a) => a.messageId === 'msg_orphan'));
        assert.ok(asked[0]!.at - started >= RESUME_AFTER_MS - 5, `first asked after ${asked[0]!.at - started} ms`);
        for (let i = 1; i < asked.length; i++) assert.ok(asked[i]!.at - asked[i - 1]!.at >= RECHECK_MS - 5, `asked again after ${asked[i]!.at - asked[i - 1]!.at} ms`);
      } finally {
        await stop();
      }
    });
  });
}
