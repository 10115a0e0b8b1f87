import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentClient, MemoryBus, READ_TIMEOUT_MS } from '../src/internal.js';

describe('agent client time-outs', () => {
  it('a read whose answer never comes fails with TIMEOUT after the read bound; a send waits its own budget', { timeout: 30_000 }, async () => {
    const bus = new MemoryBus();
    // A node that took the request and died: nothing ever answers.
    bus.subscribe('sb.agent.*.*', () => new Promise(() => {}));
    const client = new AgentClient(bus, 3 * READ_TIMEOUT_MS);
    const started = Date.now();
    const read = client.request('channelStatus', 'agent-1').then(
      () => assert.fail('a read answered by no one resolved'),
      (err: { code?: string }) => ({ code: err.code, ms: Date.now() - started }),
    );
    let sendSettled = false;
    const send = client.request('send', 'agent-1', {}).catch((err: { code?: string }) => err.code).finally(() => (sendSettled = true));
    const { code, ms } = await read;
    assert.equal(code, 'TIMEOUT');
    assert.ok(ms >= READ_TIMEOUT_MS - 50 && ms < 2 * READ_TIMEOUT_MS, `the read failed after ${ms} ms`);
    assert.equal(sendSettled, false, 'a send gave up at the read bound');
    assert.equal(await send, 'TIMEOUT');
    await bus.close();
  });
});
