import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { JetStreamWorkQueue } from '../src/work/jetstream-work-queue.js';
import type { WorkItem } from '../src/work/work-queue.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { eventually } from '../src/testing/eventually.js';

let server: TestNatsServer;
const connections: NatsConnection[] = [];
before(async () => {
  server = await startNatsServer();
});
after(async () => {
  for (const c of connections) if (!c.isClosed()) await c.close();
  await server.stop();
});

async function open(name: string): Promise<NatsConnection> {
  const c = await connect({ servers: server.url, name });
  connections.push(c);
  return c;
}

/** An idempotent effect, as the store's keyed writes are: each id takes effect once however often it runs. */
class Effects {
  readonly applied = new Map<string, number>();
  readonly deliveries = new Map<string, number[]>();
  apply(item: WorkItem): void {
    this.deliveries.set(item.id, [...(this.deliveries.get(item.id) ?? []), item.attempt]);
    if (!this.applied.has(item.id)) this.applied.set(item.id, 1);
  }
}

let streams = 0;
function work(connection: NatsConnection, stream?: string, ackWaitMs?: number): JetStreamWorkQueue {
  const name = stream ?? `W${++streams}`;
  return new JetStreamWorkQueue({ connection, stream: name, subjectPrefix: `sbw.${name}`, ...(ackWaitMs === undefined ? {} : { ackWaitMs }) });
}

// What every adapter does is in testing/work-queue-conformance.ts (test/work-queue.test.ts); here what only
// a shared queue has: a worker that dies holding an item.
describe('JetStreamWorkQueue: workers that die', () => {
  it('gives up an item whose worker died holding its last attempt, without running it again', async () => {
    const ackWaitMs = 1000;
    const stream = `W${++streams}`;
    const [deadConn, liveConn] = [await open('last-doomed'), await open('last-survivor')];
    const runs: number[] = [];
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    const options = { maxDeliver: 2, retryDelayMs: 50 };
    const doomed = await work(deadConn, stream, ackWaitMs).process(
      'last',
      async (item) => {
        runs.push(item.attempt);
        if (item.attempt === 1) throw new Error('provider down');
        await hang;
      },
      options,
    );
    const gaveUp: { attempt: number; err: unknown }[] = [];
    try {
      await work(liveConn, stream).enqueue('last', 'x', {});
      await eventually(() => runs.length === 2, { message: 'the doomed worker holds the last attempt' });
      await deadConn.close();
      const survivor = await work(liveConn, stream, ackWaitMs).process('last', async (item) => void runs.push(item.attempt), {
        ...options,
        onGiveUp: (item, err) => void gaveUp.push({ attempt: item.attempt, err }),
      });
      try {
        // A consumer with max_deliver 2 would never offer it again and it would stay in the stream.
        await eventually(() => gaveUp.length === 1, { timeoutMs: ackWaitMs + 5000, message: 'given up' });
        assert.deepEqual(runs, [1, 2], 'the handler did not run a third time');
        assert.equal(gaveUp[0]!.attempt, 3);
        assert.match(String(gaveUp[0]!.err), /did not finish/);
        await eventually(async () => (await work(liveConn, stream).pending()) === 0, { message: 'the item left the stream' });
      } finally {
        await survivor.stop();
      }
    } finally {
      release();
      await doomed.stop();
    }
  });

  it('redelivers to a live worker what a killed worker held; effects happen once per id', async () => {
    const ackWaitMs = 1000;
    const stream = `W${++streams}`;
    const [producerConn, deadConn, liveConn] = [await open('producer'), await open('doomed'), await open('survivor')];
    const producer = work(producerConn, stream);
    const effects = new Effects();
    const held: string[] = [];
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    // The doomed worker applies the effect, then "crashes" before acking: its connection dies.
    const doomed = await work(deadConn, stream, ackWaitMs).process(
      'deliver',
      async (item) => {
        effects.apply(item);
        held.push(item.id);
        await hang;
      },
      { concurrency: 3 },
    );
    const ids = Array.from({ length: 10 }, (_, i) => `in${i}`);
    for (const id of ids) await producer.enqueue('deliver', id, {});
    await eventually(() => held.length === 3, { message: 'the doomed worker holds 3 items' });
    await deadConn.close();
    const killedAt = Date.now();
    const survivor = await work(liveConn, stream, ackWaitMs).process('deliver', async (item) => effects.apply(item), { concurrency: 2 });
    try {
      await eventually(async () => effects.applied.size === 10 && (await producer.pending()) === 0, { timeoutMs: ackWaitMs + 5000, message: 'every item applied and acked' });
      console.log(`# redelivery of a killed worker's items: ${Date.now() - killedAt} ms (ack wait ${ackWaitMs} ms)`);
      assert.ok([...effects.applied.values()].every((n) => n === 1), 'each id took effect once');
      for (const id of held) {
        const deliveries = effects.deliveries.get(id)!;
        assert.equal(deliveries[0], 1);
        assert.ok(deliveries.length >= 2 && deliveries.at(-1)! >= 2, `${id} was redelivered: ${deliveries}`);
      }
      const others = ids.filter((id) => !held.includes(id));
      assert.ok(others.every((id) => effects.deliveries.get(id)!.length === 1));
    } finally {
      release();
      await doomed.stop();
      await survivor.stop();
    }
  });
});
