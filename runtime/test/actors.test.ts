import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ActorSystem, AgentClient, MemoryBus, createLogger, openStore, type Store } from '../src/internal.js';

describe('agent actors', () => {
  let store: Store;
  let bus: MemoryBus;
  let system: ActorSystem;
  const log: string[] = [];
  before(async () => {
    store = await openStore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-actors-')) });
    bus = new MemoryBus();
    system = new ActorSystem({
      bus,
      store,
      logger: createLogger({ level: 'silent', pretty: false }),
      idleMs: 50,
      operations: {
        async slow({ actor }, payload) {
          log.push(`start ${actor.agentId} ${payload.n}`);
          // Long enough that another agent's first turn (its state loaded from the store) starts meanwhile on a busy machine.
          await new Promise((r) => setTimeout(r, 50));
          log.push(`end ${actor.agentId} ${payload.n}`);
          return payload.n;
        },
        async exists({ actor }) {
          return actor.state !== null;
        },
      },
    });
    system.start();
  });
  after(async () => {
    await system.stop();
    await bus.close();
    await store.close();
  });

  it('runs one agent\'s messages one at a time, in order', async () => {
    const client = new AgentClient(bus);
    log.length = 0;
    await Promise.all([1, 2, 3].map((n) => client.request('slow', 'serial', { n })));
    assert.deepEqual(log, ['start serial 1', 'end serial 1', 'start serial 2', 'end serial 2', 'start serial 3', 'end serial 3']);
  });

  it('runs different agents concurrently', async () => {
    const client = new AgentClient(bus);
    log.length = 0;
    await Promise.all(['a', 'b'].map((id) => client.request('slow', id, { n: 1 })));
    assert.deepEqual(log.slice(0, 2).sort(), ['start a 1', 'start b 1']);
  });

  it('activates with state loaded from the store and passivates when idle', async () => {
    const client = new AgentClient(bus);
    assert.equal(await client.request('exists', 'ghost'), false);
    assert.ok(system.size > 0);
    // The sweeper (every idleMs) or this explicit call drops the idle actor.
    system.passivateIdle(Date.now() + 1000);
    assert.equal(system.size, 0);
  });

  it('refuses an unknown operation with a coded error', async () => {
    await assert.rejects(new AgentClient(bus).request('fly', 'x'), (err: { code?: string }) => err.code === 'BAD_REQUEST');
  });
});
