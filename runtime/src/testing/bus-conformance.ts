import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hasErrorCode, SwitchboardError } from '@switchboard/sdk';
import type { Bus } from '../bus/bus.js';

/** Runs the cases every Bus implementation must pass. `create` gives a fresh, connected bus. */
export function describeBusConformance(name: string, create: () => Promise<Bus>): void {
  describe(`Bus conformance: ${name}`, () => {
    let bus: Bus;
    let prefix = 0;
    const subject = (s: string) => `conf${prefix}.${s}`;
    before(async () => {
      bus = await create();
    });
    after(async () => {
      await bus.close();
    });

    it('answers a request with the handler result', async () => {
      prefix++;
      bus.subscribe(subject('echo'), (data) => ({ got: data }));
      assert.deepEqual(await bus.request(subject('echo'), { n: 1 }), { got: { n: 1 } });
    });

    it('carries a handler error back with its code, message and retryability', async () => {
      prefix++;
      bus.subscribe(subject('fail'), () => {
        throw new SwitchboardError('CONFLICT', 'Already there.', { retryable: true });
      });
      await assert.rejects(bus.request(subject('fail'), {}), (err: unknown) => {
        assert.ok(hasErrorCode(err, 'CONFLICT'));
        assert.equal((err as SwitchboardError).message, 'Already there.');
        assert.equal((err as SwitchboardError).retryable, true);
        return true;
      });
    });

    it('fails a request nobody answers in time with TIMEOUT', async () => {
      prefix++;
      bus.subscribe(subject('slow'), () => new Promise(() => undefined));
      await assert.rejects(bus.request(subject('slow'), {}, { timeoutMs: 50 }), (err: unknown) => hasErrorCode(err, 'TIMEOUT'));
    });

    it('fails a request with no subscriber with UNAVAILABLE', async () => {
      prefix++;
      await assert.rejects(bus.request(subject('nobody'), {}, { timeoutMs: 500 }), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
    });

    it('publishes to every subscriber, with * and > wildcards', async () => {
      prefix++;
      const seen: string[] = [];
      const done = deferred(3);
      bus.subscribe(subject('a.b'), (_d, s) => (seen.push(`exact ${s}`), done.tick()));
      bus.subscribe(subject('a.*'), (_d, s) => (seen.push(`star ${s}`), done.tick()));
      bus.subscribe(subject('>'), (_d, s) => (seen.push(`tail ${s}`), done.tick()));
      bus.subscribe(subject('a.c'), () => seen.push('wrong'));
      bus.publish(subject('a.b'), { x: 1 });
      await done.promise;
      assert.deepEqual(seen.sort(), [`exact ${subject('a.b')}`, `star ${subject('a.b')}`, `tail ${subject('a.b')}`]);
    });

    it('gives each message of a queue group to exactly one member', async () => {
      prefix++;
      const counts = [0, 0];
      const done = deferred(10);
      bus.subscribe(subject('work'), () => (counts[0]!++, done.tick()), { queue: 'workers' });
      bus.subscribe(subject('work'), () => (counts[1]!++, done.tick()), { queue: 'workers' });
      for (let i = 0; i < 10; i++) bus.publish(subject('work'), i);
      await done.promise;
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(counts[0]! + counts[1]!, 10);
    });

    it('stops delivering after unsubscribe', async () => {
      prefix++;
      let count = 0;
      const sub = bus.subscribe(subject('once'), () => count++);
      sub.unsubscribe();
      bus.publish(subject('once'), 1);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(count, 0);
    });

    it('delivers copies: a receiver cannot change the sender\'s object', async () => {
      prefix++;
      bus.subscribe(subject('mutate'), (data) => {
        (data as { list: number[] }).list.push(99);
        return data;
      });
      const sent = { list: [1] };
      const reply = await bus.request<{ list: number[] }>(subject('mutate'), sent);
      assert.deepEqual(sent.list, [1]);
      assert.deepEqual(reply.list, [1, 99]);
    });
  });
}

function deferred(count: number) {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  let left = count;
  return { promise, tick: () => (--left === 0 ? resolve() : undefined) };
}
