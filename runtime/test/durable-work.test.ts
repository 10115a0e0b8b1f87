import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { DurableWork, type WorkItem } from '../src/cluster/durable-work.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';

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

async function waitFor(what: string, check: () => boolean | Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`Not within ${withinMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - started;
}

let streams = 0;
function work(connection: NatsConnection, stream?: string): DurableWork {
  const name = stream ?? `W${++streams}`;
  return new DurableWork({ connection, stream: name, subjectPrefix: `sbw.${name}` });
}

describe('DurableWork over JetStream', () => {
  it('runs every enqueued item once and removes it when acked', async () => {
    const c = await open('one');
    const queue = work(c);
    const effects = new Effects();
    const ids = Array.from({ length: 20 }, (_, i) => `m${i}`);
    for (const id of ids) await queue.enqueue('deliver', id, { n: id });
    assert.equal(await queue.pending(), 20);
    const worker = await queue.process<{ n: string }>('deliver', async (item) => {
      assert.equal(item.payload.n, item.id);
      effects.apply(item);
    }, { concurrency: 4 });
    try {
      await waitFor('all applied', () => effects.applied.size === 20, 5000);
      await waitFor('stream empty', async () => (await queue.pending()) === 0, 5000);
      assert.ok([...effects.deliveries.values()].every((d) => d.length === 1));
    } finally {
      await worker.stop();
    }
  });

  it('drops a repeat of an id inside the duplicate window', async () => {
    const queue = work(await open('dup'));
    const first = await queue.enqueue('send', 'same', { x: 1 });
    const again = await queue.enqueue('send', 'same', { x: 2 });
    assert.equal(first.duplicate, false);
    assert.equal(again.duplicate, true);
    assert.equal(await queue.pending(), 1);
  });

  it('retries a failed item, then gives up after maxDeliver and hands it to onGiveUp', async () => {
    const queue = work(await open('retry'));
    const attempts: number[] = [];
    const gaveUp: string[] = [];
    const worker = await queue.process(
      'flaky',
      async (item) => {
        attempts.push(item.attempt);
        if (item.id === 'never' || item.attempt === 1) throw new Error('provider down');
      },
      { maxDeliver: 3, retryDelayMs: 50, onGiveUp: (item) => void gaveUp.push(item.id) },
    );
    try {
      await queue.enqueue('flaky', 'later', {});
      await waitFor('second attempt succeeded', async () => attempts.length >= 2 && (await queue.pending()) === 0, 5000);
      attempts.length = 0;
      await queue.enqueue('flaky', 'never', {});
      await waitFor('given up', () => gaveUp.length === 1, 5000);
      assert.deepEqual(attempts, [1, 2, 3]);
      assert.deepEqual(gaveUp, ['never']);
      await waitFor('the given-up item left the queue', async () => (await queue.pending()) === 0, 2000);
    } finally {
      await worker.stop();
    }
  });

  it('waits the delay retryDelayMs gives each attempt; the attempt is the server\'s delivery count', async () => {
    const queue = work(await open('backoff'));
    // After attempts 1, 2 and 3; far enough apart that a timer late on a loaded runner still tells them apart.
    const delays = [100, 1000, 300];
    const runs: { attempt: number; at: number }[] = [];
    const worker = await queue.process(
      'backoff',
      async (item) => {
        runs.push({ attempt: item.attempt, at: Date.now() });
        if (item.attempt <= delays.length) throw new Error('not yet');
      },
      { maxDeliver: 10, retryDelayMs: (attempt) => delays[attempt - 1]! },
    );
    try {
      await queue.enqueue('backoff', 'b', {});
      await waitFor('the fourth attempt succeeded', async () => runs.length === 4 && (await queue.pending()) === 0, 20_000);
      assert.deepEqual(runs.map((r) => r.attempt), [1, 2, 3, 4]);
      const gaps = runs.slice(1).map((r, i) => r.at - runs[i]!.at);
      console.log(`# retry delays asked ${delays.join('/')} ms, measured ${gaps.join('/')} ms`);
      gaps.forEach((gap, i) => assert.ok(gap >= delays[i]! - 5 && gap < delays[i]! + 500, `retry ${i + 1} after ${gap} ms, asked ${delays[i]} ms`));
    } finally {
      await worker.stop();
    }
  });

  it('gives up an item whose worker died holding its last attempt, without running it again', async () => {
    const ackWaitMs = 1000;
    const stream = `W${++streams}`;
    const [deadConn, liveConn] = [await open('last-doomed'), await open('last-survivor')];
    const runs: number[] = [];
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    const options = { maxDeliver: 2, retryDelayMs: 50, ackWaitMs };
    const doomed = await work(deadConn, stream).process(
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
      await waitFor('the doomed worker holds the last attempt', () => runs.length === 2, 5000);
      await deadConn.close();
      const survivor = await work(liveConn, stream).process('last', async (item) => void runs.push(item.attempt), {
        ...options,
        onGiveUp: (item, err) => void gaveUp.push({ attempt: item.attempt, err }),
      });
      try {
        // A consumer with max_deliver 2 would never offer it again and it would stay in the stream.
        await waitFor('given up', () => gaveUp.length === 1, ackWaitMs + 5000);
        assert.deepEqual(runs, [1, 2], 'the handler did not run a third time');
        assert.equal(gaveUp[0]!.attempt, 3);
        assert.match(String(gaveUp[0]!.err), /did not finish/);
        await waitFor('the item left the stream', async () => (await work(liveConn, stream).pending()) === 0, 2000);
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
    const doomed = await work(deadConn, stream).process(
      'deliver',
      async (item) => {
        effects.apply(item);
        held.push(item.id);
        await hang;
      },
      { concurrency: 3, ackWaitMs },
    );
    const ids = Array.from({ length: 10 }, (_, i) => `in${i}`);
    for (const id of ids) await producer.enqueue('deliver', id, {});
    await waitFor('the doomed worker holds 3 items', () => held.length === 3, 5000);
    await deadConn.close();
    const killedAt = Date.now();
    const survivor = await work(liveConn, stream).process('deliver', async (item) => effects.apply(item), { concurrency: 2, ackWaitMs });
    try {
      await waitFor('every item applied and acked', async () => effects.applied.size === 10 && (await producer.pending()) === 0, ackWaitMs + 5000);
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
