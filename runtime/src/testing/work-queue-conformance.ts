import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { RetryLater, type ProcessOptions, type WorkHandler, type WorkItem, type WorkQueue } from '../work/work-queue.js';
import { eventually } from './eventually.js';

/** A queue under test: `create` gives a fresh, empty queue (its own stream, say); `close` ends what the suite made. */
export interface WorkQueueUnderTest {
  create(): Promise<WorkQueue>;
  close?(): Promise<void>;
}

/** Runs the cases every WorkQueue adapter must pass. */
export function describeWorkQueueConformance(name: string, underTest: WorkQueueUnderTest): void {
  describe(`WorkQueue conformance: ${name}`, () => {
    const stops: (() => Promise<void>)[] = [];
    after(async () => {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      await underTest.close?.();
    });
    const start = async <T = unknown>(queue: WorkQueue, kind: string, handler: WorkHandler<T>, options?: ProcessOptions<T>) => {
      const worker = await queue.process<T>(kind, handler, options);
      stops.push(() => worker.stop());
      return worker;
    };

    it('runs every item once, enqueued before or after its worker starts, with its id, kind, payload and attempt 1', async () => {
      const queue = await underTest.create();
      const seen: WorkItem<{ n: number }>[] = [];
      for (let n = 0; n < 5; n++) await queue.enqueue('early', `e${n}`, { n });
      assert.equal(await queue.pending(), 5);
      await start<{ n: number }>(queue, 'early', async (item) => void seen.push(item), { concurrency: 2 });
      for (let n = 5; n < 10; n++) await queue.enqueue('early', `e${n}`, { n });
      await eventually(async () => seen.length === 10 && (await queue.pending()) === 0, { message: 'all ran and were acked' });
      assert.deepEqual(seen.map((i) => i.id).sort(), Array.from({ length: 10 }, (_, n) => `e${n}`).sort());
      for (const item of seen) {
        assert.equal(item.kind, 'early');
        assert.equal(item.attempt, 1);
        assert.deepEqual(item.payload, { n: Number(item.id.slice(1)) });
      }
    });

    it('drops a repeat of an id inside the duplicate window; the item runs once', async () => {
      const queue = await underTest.create();
      const first = await queue.enqueue('dup', 'same', { x: 1 });
      const again = await queue.enqueue('dup', 'same', { x: 2 });
      assert.equal(first.duplicate, false);
      assert.equal(again.duplicate, true);
      assert.equal(await queue.pending(), 1);
      const payloads: unknown[] = [];
      await start(queue, 'dup', async (item) => void payloads.push(item.payload));
      await eventually(async () => (await queue.pending()) === 0, { message: 'acked' });
      await sleep(200);
      assert.deepEqual(payloads, [{ x: 1 }]);
    });

    it('keeps kinds apart: a worker takes only its own kind', async () => {
      const queue = await underTest.create();
      const seen: string[] = [];
      await queue.enqueue('other', 'o1', {});
      await start(queue, 'mine', async (item) => void seen.push(item.id));
      await queue.enqueue('mine', 'm1', {});
      await eventually(() => seen.length === 1, { message: 'mine ran' });
      await sleep(200);
      assert.deepEqual(seen, ['m1']);
      assert.equal(await queue.pending(), 1, 'the other kind waits for its own worker');
    });

    it('retries a failed item, then gives up after maxDeliver and hands it to onGiveUp', async () => {
      const queue = await underTest.create();
      const attempts: Record<string, number[]> = {};
      const gaveUp: { id: string; attempt: number; err: unknown }[] = [];
      await start(
        queue,
        'flaky',
        async (item) => {
          (attempts[item.id] ??= []).push(item.attempt);
          if (item.id === 'never' || item.attempt === 1) throw new Error('provider down');
        },
        { maxDeliver: 3, retryDelayMs: 50, onGiveUp: (item: WorkItem, err: unknown) => void gaveUp.push({ id: item.id, attempt: item.attempt, err }) },
      );
      await queue.enqueue('flaky', 'later', {});
      await queue.enqueue('flaky', 'never', {});
      await eventually(async () => gaveUp.length === 1 && (await queue.pending()) === 0, { message: 'given up and acked' });
      assert.deepEqual(attempts, { later: [1, 2], never: [1, 2, 3] });
      assert.equal(gaveUp[0]!.id, 'never');
      assert.equal(gaveUp[0]!.attempt, 3);
      assert.match(String(gaveUp[0]!.err), /provider down/);
    });

    it('offers an item that throws RetryLater again after the delay, counting the attempt', async () => {
      const queue = await underTest.create();
      const runs: { attempt: number; at: number }[] = [];
      await start(
        queue,
        'later',
        async (item) => {
          runs.push({ attempt: item.attempt, at: Date.now() });
          if (item.attempt < 3) throw new RetryLater('not due');
        },
        { maxDeliver: Infinity, retryDelayMs: 300 },
      );
      await queue.enqueue('later', 'l', {});
      await eventually(async () => runs.length === 3 && (await queue.pending()) === 0, { message: 'third attempt ran and was acked' });
      assert.deepEqual(runs.map((r) => r.attempt), [1, 2, 3]);
      for (let i = 1; i < runs.length; i++) assert.ok(runs[i]!.at - runs[i - 1]!.at >= 295, `retry ${i} after ${runs[i]!.at - runs[i - 1]!.at} ms, asked 300 ms`);
    });

    it('waits the delay retryDelayMs gives each attempt', async () => {
      const queue = await underTest.create();
      const delays = [100, 800, 300];
      const runs: number[] = [];
      await start(
        queue,
        'backoff',
        async (item) => {
          runs.push(Date.now());
          if (item.attempt <= delays.length) throw new Error('not yet');
        },
        { maxDeliver: 10, retryDelayMs: (attempt: number) => delays[attempt - 1]! },
      );
      await queue.enqueue('backoff', 'b', {});
      await eventually(async () => runs.length === 4 && (await queue.pending()) === 0, { timeoutMs: 20_000, message: 'the fourth attempt succeeded' });
      const gaps = runs.slice(1).map((at, i) => at - runs[i]!);
      gaps.forEach((gap, i) => assert.ok(gap >= delays[i]! - 5 && gap < delays[i]! + 1000, `retry ${i + 1} after ${gap} ms, asked ${delays[i]} ms`));
    });

    it('gives an item up again, without running it, when its onGiveUp threw', async () => {
      const queue = await underTest.create();
      const runs: number[] = [];
      let giveUps = 0;
      await start(
        queue,
        'stubborn',
        async (item) => {
          runs.push(item.attempt);
          throw new Error('always');
        },
        {
          maxDeliver: 2,
          retryDelayMs: 50,
          onGiveUp: () => {
            if (++giveUps === 1) throw new Error('dead letter not written');
          },
        },
      );
      await queue.enqueue('stubborn', 's', {});
      await eventually(async () => giveUps === 2 && (await queue.pending()) === 0, { message: 'given up twice and acked' });
      assert.deepEqual(runs, [1, 2]);
    });

    it('never runs a removed item', async () => {
      const queue = await underTest.create();
      const removed = await queue.enqueue('removal', 'gone', {});
      await queue.enqueue('removal', 'kept', {});
      await removed.remove();
      const seen: string[] = [];
      await start(queue, 'removal', async (item) => void seen.push(item.id));
      await eventually(async () => seen.includes('kept') && (await queue.pending()) === 0, { message: 'kept ran and was acked' });
      await sleep(200);
      assert.deepEqual(seen, ['kept']);
    });

    it('runs at most `concurrency` items at once', async () => {
      const queue = await underTest.create();
      let inHand = 0;
      let most = 0;
      let done = 0;
      await start(
        queue,
        'bounded',
        async () => {
          most = Math.max(most, ++inHand);
          await sleep(30);
          inHand--;
          done++;
        },
        { concurrency: 3 },
      );
      for (let i = 0; i < 12; i++) await queue.enqueue('bounded', `c${i}`, {});
      await eventually(() => done === 12, { message: 'all done' });
      assert.ok(most <= 3, `${most} in hand at once`);
      assert.ok(most >= 2, `the worker ran items side by side (${most})`);
    });

    it('stop waits for the items in hand; what comes later waits for the next worker', async () => {
      const queue = await underTest.create();
      let release!: () => void;
      const hang = new Promise<void>((r) => (release = r));
      const finished: string[] = [];
      const worker = await queue.process('handover', async (item) => {
        await hang;
        finished.push(item.id);
      });
      await queue.enqueue('handover', 'first', {});
      await sleep(200);
      let stopped = false;
      const stopping = worker.stop().then(() => (stopped = true));
      await sleep(100);
      assert.equal(stopped, false, 'stop waits for the item in hand');
      release();
      await stopping;
      assert.deepEqual(finished, ['first']);
      await eventually(async () => (await queue.pending()) === 0, { message: 'first acked' });
      await queue.enqueue('handover', 'second', {});
      await sleep(200);
      assert.deepEqual(finished, ['first'], 'a stopped worker takes nothing');
      await start(queue, 'handover', async (item) => void finished.push(item.id));
      await eventually(() => finished.includes('second'), { message: 'the next worker ran it' });
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
