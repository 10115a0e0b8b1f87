import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GatewayPorts, ReplyCheck } from '@switchboard/runtime';
import { ReplyWaits } from '../../src/replies/reply-waits.js';

// The bounded wait on its own: hints re-read the store, a slow timer re-reads without one, and the
// listener is released however the wait ends (reply, time-out, the client gone, the gateway closing).

const REPLY = { cursor: 5, type: 'message.received' } as NonNullable<ReplyCheck['reply']>;

function fakePorts() {
  let stored: ReplyCheck = { reply: null, cursor: 4 };
  let reads = 0;
  const listeners = new Set<(agentId: string) => void>();
  const ports = {
    replies: {
      start: async () => ({ after: 0 }),
      check: async () => {
        reads++;
        return stored;
      },
    },
    reach: {
      followInboxes: (listener: (agentId: string) => void) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    },
  } as unknown as Pick<GatewayPorts, 'replies' | 'reach'>;
  return {
    ports,
    listeners,
    get reads() {
      return reads;
    },
    store(check: ReplyCheck) {
      stored = check;
    },
    hint(agentId: string) {
      for (const listener of listeners) listener(agentId);
    },
  };
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

describe('waits for a reply', () => {
  it("answers on its agent's hint, not on another's, and lets go of the hints", async () => {
    const fake = fakePorts();
    const waits = new ReplyWaits(fake.ports, 60_000);
    const started = Date.now();
    const waiting = waits.wait('a', 'cnv_x', 0, 20_000);
    await tick();
    assert.equal(fake.listeners.size, 1);
    fake.store({ reply: REPLY, cursor: 5 });
    fake.hint('b');
    await tick();
    assert.equal(fake.reads, 1, "another agent's hint reads nothing");
    fake.hint('a');
    assert.deepEqual(await waiting, { reply: REPLY, cursor: 5 });
    assert.ok(Date.now() - started < 5000);
    assert.equal(fake.listeners.size, 0);
  });

  it('re-reads on its slow timer without a hint, and answers the cursor at the time-out', async () => {
    const fake = fakePorts();
    const waits = new ReplyWaits(fake.ports, 50);
    const found = await waits.wait('a', 'cnv_x', 0, 400);
    assert.deepEqual(found, { reply: null, cursor: 4 });
    assert.ok(fake.reads >= 4, `re-read on the timer (${fake.reads} reads)`);
    assert.equal(fake.listeners.size, 0);
  });

  it('ends at once when the client goes away or the gateway closes, letting go of the hints', async () => {
    const fake = fakePorts();
    const waits = new ReplyWaits(fake.ports, 60_000);
    const client = new AbortController();
    const started = Date.now();
    const gone = waits.wait('a', 'cnv_x', 0, 20_000, client.signal);
    const closing = waits.wait('a', 'cnv_y', 0, 20_000);
    await tick();
    assert.equal(fake.listeners.size, 2);
    client.abort();
    assert.deepEqual(await gone, { reply: null, cursor: 4 });
    assert.equal(fake.listeners.size, 1);
    waits.close();
    assert.deepEqual(await closing, { reply: null, cursor: 4 });
    assert.equal(fake.listeners.size, 0);
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(await waits.wait('a', 'cnv_z', 0, 20_000), { reply: null, cursor: 4 }, 'a wait after closing only looks');
  });
});
