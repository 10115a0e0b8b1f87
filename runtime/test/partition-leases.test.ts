import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { PartitionLeases, type LeaseEnd } from '../src/cluster/partition-leases.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';

const TTL_MS = 1000;
const PARTITIONS = 4;
/**
 * The restart test's TTL: a node waits a TTL before it takes a free partition another is preferred for,
 * and on a loaded 2-core CI machine a client's reconnect after nats-server's restart took over 1 s.
 */
const RESTART_TTL_MS = 3000;

describe('partition leases', () => {
  let server: TestNatsServer;
  let connection: NatsConnection;
  before(async () => {
    server = await startNatsServer();
    connection = await connect({ servers: server.url, name: 'leases-test' });
  });
  after(async () => {
    await connection?.close();
    await server?.stop();
  });

  it('keeps renewing its other partitions while a lost one drains forever', async () => {
    const released: [number, LeaseEnd][] = [];
    const leases = new PartitionLeases({
      connection,
      nodeId: 'stuck-node',
      partitions: PARTITIONS,
      ttlMs: TTL_MS,
      bucket: 'leases_stuck',
      onAcquired: () => undefined,
      // The lost partition's work never drains (an operation that hangs); handing over the others does.
      onReleased: (partition, reason) => {
        released.push([partition, reason]);
        return reason === 'lost' ? new Promise<void>(() => undefined) : undefined;
      },
    });
    await leases.start();
    try {
      const deadline = Date.now() + 5 * TTL_MS;
      while (leases.owned().length < PARTITIONS) {
        assert.ok(Date.now() < deadline, `took ${leases.owned().length} of ${PARTITIONS} partitions`);
        await new Promise((r) => setTimeout(r, 25));
      }
      // Another writer takes partition 0 from under the node: its next renewal finds the lease gone.
      const kv = await new Kvm(connection).open('leases_stuck');
      await kv.put('p.0', JSON.stringify({ node: 'thief' }));
      const until = Date.now() + 3 * TTL_MS;
      while (Date.now() < until) {
        const owned = leases.owned();
        assert.ok([1, 2, 3].every((p) => owned.includes(p)), `still holds 1, 2 and 3 (holds ${owned.join(',')})`);
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.deepEqual(released, [[0, 'lost']], 'partition 0 was given up as lost, and only it');
    } finally {
      await leases.stop();
    }
  });
});

describe('partition leases across a nats-server restart', () => {
  it('nodes back from the restart take their own share again, not every partition to hand most of them over', async () => {
    let server = await startNatsServer();
    const { port, storeDir } = server;
    const connections: NatsConnection[] = [];
    const nodes: PartitionLeases[] = [];
    const events: string[] = [];
    try {
      for (const nodeId of ['node-a', 'node-b']) {
        const connection = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
        connections.push(connection);
        nodes.push(
          new PartitionLeases({
            connection,
            nodeId,
            partitions: 8,
            ttlMs: RESTART_TTL_MS,
            bucket: 'leases_restart',
            onAcquired: (p) => void events.push(`${nodeId} +${p}`),
            onReleased: (p, reason) => void events.push(`${nodeId} -${p} ${reason}`),
          }),
        );
      }
      for (const node of nodes) await node.start();
      const settled = async (what: string) => {
        const deadline = Date.now() + 15 * RESTART_TTL_MS;
        for (;;) {
          const owned = nodes.map((n) => n.owned());
          if (owned[0]!.length > 0 && owned[1]!.length > 0 && owned[0]!.length + owned[1]!.length === 8 && owned[0]!.every((p) => !owned[1]!.includes(p))) return owned;
          assert.ok(Date.now() < deadline, `${what}: the two nodes never shared the 8 partitions: ${JSON.stringify(owned)}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      };
      const before = await settled('at start');
      await server.stop({ keepStore: true });
      // Away for longer than a TTL: every lease lapses on its holder.
      await new Promise((r) => setTimeout(r, 2 * RESTART_TTL_MS));
      events.length = 0;
      server = await startNatsServer({ port, storeDir });
      const after = await settled('after the restart');
      // Some time for a churn to show: a partition taken by a node that is not its preferred holder is handed over within a round or two.
      await new Promise((r) => setTimeout(r, 3 * RESTART_TTL_MS));
      assert.deepEqual(nodes.map((n) => n.owned()), after, 'the share moved again after the restart had settled');
      assert.deepEqual(after, before, 'each node took its own share again');
      assert.deepEqual(events.filter((e) => e.endsWith(' released')), [], `a partition taken after the restart was handed over: ${events.join(', ')}`);
    } finally {
      for (const node of nodes) await node.stop().catch(() => undefined);
      for (const connection of connections) await connection.close().catch(() => undefined);
      await server.stop();
    }
  });
});
