import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ActorSystem } from '../src/actors/actor-system.js';
import { testOperation } from '../src/testing/test-operation.js';
import { AgentClient } from '../src/agents/agent-client.js';
import { NatsBus } from '../src/bus/nats-bus.js';
import { JetStreamWorkQueue } from '../src/work/jetstream-work-queue.js';
import { PartitionedActors } from '../src/cluster/partitioned-actors.js';
import { createLogger } from '../src/logger.js';
import { openStore, type Store } from '../src/store/store.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { eventually } from '../src/testing/eventually.js';

const PARTITIONS = 8;
const TTL_MS = 1500;
const logger = createLogger({ level: 'silent', pretty: false });

let server: TestNatsServer;
let store: Store;
let dataDir: string;
const closers: (() => Promise<void>)[] = [];
before(async () => {
  server = await startNatsServer();
  dataDir = mkdtempSync(join(tmpdir(), 'sb-restart-'));
  store = await openStore({ dataDir, synchronous: 'NORMAL' });
});
after(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await store.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function node(id: string) {
  const bus = await NatsBus.connect({ servers: server.url, name: id });
  const leaseConnection: NatsConnection = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const system = new ActorSystem({ bus, store, logger, idleMs: 60_000, operations: [testOperation('ping', async () => id)] });
  const host = new PartitionedActors({ bus, connection: leaseConnection, system, nodeId: id, partitions: PARTITIONS, leaseTtlMs: TTL_MS, bucket: 'restart', logger });
  await host.start();
  closers.push(async () => {
    await host.stop();
    await bus.close();
    await leaseConnection.close();
  });
  return host;
}

describe('a nats-server restart', () => {
  it('the nodes reconnect by themselves, hold every partition again and serve; acked durable work survives', async () => {
    const [a, b] = [await node('node-a'), await node('node-b')];
    const held = () => new Set([...a.leases.owned(), ...b.leases.owned()]).size;
    await eventually(() => held() === PARTITIONS, { timeoutMs: 5 * TTL_MS, message: 'all partitions held' });
    const caller = await NatsBus.connect({ servers: server.url, name: 'gateway' });
    closers.push(() => caller.close());
    const client = new AgentClient(caller, 2000, { partitions: PARTITIONS, retryUnavailableMs: 15_000 });
    const workConnection = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    closers.push(() => workConnection.close());
    const work = new JetStreamWorkQueue({ connection: workConnection });
    for (let i = 0; i < 5; i++) await work.enqueue('deliver', `before-restart-${i}`, { i });
    // A worker that stays running across the restart.
    const live = new Set<string>();
    const liveWorker = await work.process('live', async (item) => void live.add(item.id));
    closers.push(() => liveWorker.stop());
    await work.enqueue('live', 'live-before', {});
    await eventually(() => live.has('live-before'), { message: 'the live worker runs' });

    await server.stop({ keepStore: true });
    const restarted = Date.now();
    server = await startNatsServer({ port: server.port, storeDir: server.storeDir });
    // Calls made while the connections come back may time out; the cluster must serve every agent again by itself.
    const agents = Array.from({ length: 12 }, (_, i) => `agent-${i}`);
    const served = new Set<string>();
    await eventually(
      async () => {
        await Promise.all(agents.filter((id) => !served.has(id)).map((id) => client.request('ping', id).then(() => served.add(id), () => undefined)));
        return served.size === agents.length;
      },
      { timeoutMs: 15_000, message: 'every agent served again' },
    );
    console.log(`# nats-server restart: every agent served again ${Date.now() - restarted} ms after the restart began`);
    await eventually(() => held() === PARTITIONS, { timeoutMs: 5 * TTL_MS, message: 'all partitions held' });
    await new Promise((r) => setTimeout(r, 2 * TTL_MS));
    assert.deepEqual(a.leases.liveNodes(), ['node-a', 'node-b'], 'node A still sees node B (its watches came back)');
    assert.deepEqual(b.leases.liveNodes(), ['node-a', 'node-b'], 'node B still sees node A');
    // Ownership stays single: no partition is held by both nodes.
    assert.deepEqual(a.leases.owned().filter((p) => b.leases.holds(p)), []);
    assert.equal(await work.pending(), 5, 'work acked by the server before the restart is still there');
    const done = new Set<string>();
    const worker = await work.process('deliver', async (item) => void done.add(item.id));
    closers.push(() => worker.stop());
    await eventually(() => done.size === 5, { message: 'the work runs after the restart' });
    await work.enqueue('live', 'live-after', {});
    await eventually(() => live.has('live-after'), { message: 'the worker that ran across the restart takes new work' });
  });
});
