import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ActorSystem, AgentClient, MemoryBus, createLogger, defineOperation, openStore, type Store } from '../src/internal.js';
import { servingAll } from '../src/actors/operation.js';

/** Operations of these tests' own: `slow` and `exists` in the agent's mailbox, `peek` outside it. */
const Agent = { agentId: Type.String() };
const SLOW = { name: 'slow', request: Type.Object({ ...Agent, n: Type.Number() }), answer: Type.Number(), mailbox: true, tenure: false } as const;
const EXISTS = { name: 'exists', request: Type.Object(Agent), answer: Type.Boolean(), mailbox: true, tenure: false } as const;
const PEEK = { name: 'peek', request: Type.Object({ ...Agent, n: Type.Number() }), answer: Type.Unknown(), mailbox: false, tenure: true } as const;

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
      operations: [
        defineOperation(SLOW, {
          needs: [],
          async handle({ actor }, payload) {
            log.push(`start ${actor.agentId} ${payload.n}`);
            // Long enough that another agent's first turn (its state loaded from the store) starts meanwhile on a busy machine.
            await new Promise((r) => setTimeout(r, 50));
            log.push(`end ${actor.agentId} ${payload.n}`);
            return payload.n;
          },
        }),
        defineOperation(EXISTS, {
          needs: [],
          async handle({ actor }) {
            return actor.state !== null;
          },
        }),
        defineOperation(PEEK, {
          needs: ['inbox'],
          async handle(context, payload) {
            log.push(`peek ${context.actor.agentId} ${payload.n}`);
            await new Promise((r) => setTimeout(r, 50));
            log.push(`peeked ${context.actor.agentId} ${payload.n}`);
            return { sees: Object.keys(context.store), fenced: typeof context.tenure.assert };
          },
        }),
      ],
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

  it('refuses a payload its entry does not take, before it runs', async () => {
    log.length = 0;
    await assert.rejects(new AgentClient(bus).request('slow', 'strict', { n: 'one' }), (err: { code?: string; message?: string }) => err.code === 'BAD_REQUEST' && /slow/.test(err.message ?? ''));
    assert.deepEqual(log, []);
  });

  it('runs an operation that needs no mailbox beside the next turn, after the turns before it', async () => {
    const client = new AgentClient(bus);
    log.length = 0;
    await Promise.all([client.request('slow', 'shared', { n: 1 }), client.request('peek', 'shared', { n: 2 }), client.request('slow', 'shared', { n: 3 })]);
    assert.deepEqual(log.slice(0, 3), ['start shared 1', 'end shared 1', 'peek shared 2']);
    // The peek waits as long as a slow turn, yet the third turn started while it was under way.
    assert.ok(log.indexOf('start shared 3') < log.indexOf('peeked shared 2'), log.join(', '));
  });

  it('hands an operation only the repositories it names, and the tenure when its entry asks for one', async () => {
    assert.deepEqual(await new AgentClient(bus).request('peek', 'narrow', { n: 0 }), { sees: ['inbox'], fenced: 'function' });
  });

  it('refuses to register two operations under one name', () => {
    const again = defineOperation(EXISTS, { needs: [], handle: async () => true });
    assert.throws(() => new ActorSystem({ bus, store, logger: createLogger({ level: 'silent', pretty: false }), idleMs: 50, operations: [again, again] }), /exists/);
  });

  it('checks that operations serve each entry of a catalogue, with that very entry', () => {
    const exists = defineOperation(EXISTS, { needs: [], handle: async () => true });
    const slow = defineOperation(SLOW, { needs: [], handle: async (_, { n }) => n });
    assert.deepEqual(servingAll({ exists: EXISTS, slow: SLOW }, [exists, slow]), [exists, slow]);
    assert.throws(() => servingAll({ exists: EXISTS, slow: SLOW }, [exists]), /missing slow/);
    const copy = defineOperation({ ...EXISTS }, { needs: [], handle: async () => true });
    assert.throws(() => servingAll({ exists: EXISTS }, [copy]), /not its entries exists/);
  });

  it('refuses an unknown operation with a coded error', async () => {
    await assert.rejects(new AgentClient(bus).request('fly', 'x'), (err: { code?: string }) => err.code === 'BAD_REQUEST');
  });
});
