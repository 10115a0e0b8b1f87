import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { PartitionLeases, type LeaseEnd } from '../src/cluster/partition-leases.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';

const TTL_MS = 1000;
const PARTITIONS = 4;

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

  /** The token each partition was taken with. */
  const tokens = new Map<string, number>();
  /** Starts a node over its own bucket whose handovers drain until `drain` says so; resolves once it holds every partition. */
  const drainingNode = async (bucket: string, drain: (partition: number, reason: LeaseEnd) => Promise<void>) => {
    const onAcquired = (partition: number, token: number) => void tokens.set(`${bucket}/${partition}`, token);
    const leases = new PartitionLeases({ connection, nodeId: `${bucket}-node`, partitions: PARTITIONS, ttlMs: TTL_MS, bucket, onAcquired, onReleased: drain });
    await leases.start();
    for (const deadline = Date.now() + 5 * TTL_MS; leases.owned().length < PARTITIONS; ) {
      assert.ok(Date.now() < deadline, `took ${leases.owned().length} of ${PARTITIONS} partitions`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return leases;
  };

  it('keeps and renews the leases of a stopping node while their work drains for longer than a TTL, then hands them over', async () => {
    const DRAIN_MS = 3 * TTL_MS;
    const samples: { holds: boolean; keeps: boolean }[] = [];
    let sampling: NodeJS.Timeout | undefined;
    const leases = await drainingNode('leases_drain', async (partition, reason) => {
      assert.equal(reason, 'stopped');
      if (partition !== 0) return;
      sampling = setInterval(() => samples.push({ holds: leases.holds(0), keeps: leases.keeps(0, tokens.get('leases_drain/0')!) }), 25);
      await new Promise((r) => setTimeout(r, DRAIN_MS));
      clearInterval(sampling);
    });
    const kv = await new Kvm(connection).open('leases_drain');
    const stopped = leases.stop();
    // Well past the TTL into the drain: the lease is still this node's (renewed), so no one else can take it.
    await new Promise((r) => setTimeout(r, 2 * TTL_MS));
    await assert.rejects(kv.create('p.0', JSON.stringify({ node: 'other' })), 'the lease of a draining partition is still held');
    await stopped;
    assert.ok(samples.length > 40, `sampled ${samples.length} times`);
    assert.ok(samples.every((s) => !s.holds && s.keeps), 'no new work, the lease kept, for the whole drain');
    assert.notEqual((await kv.get('p.0'))?.operation, 'PUT', 'handed over: the lease is deleted once the work drained');
  });

  it('stops keeping a draining partition at once when its lease is lost, and does not release it twice', async () => {
    const released: [number, LeaseEnd][] = [];
    let finish!: () => void;
    const draining = new Promise<void>((resolve) => (finish = resolve));
    const leases = await drainingNode('leases_drain_lost', (partition, reason) => {
      released.push([partition, reason]);
      return partition === 0 ? draining : Promise.resolve();
    });
    const stopped = leases.stop();
    try {
      await new Promise((r) => setTimeout(r, 100));
      const token = tokens.get('leases_drain_lost/0')!;
      assert.ok(leases.keeps(0, token), 'kept while it drains');
      assert.equal(leases.keeps(0, token + 1000), false, 'kept under the token it was taken with only');
      const kv = await new Kvm(connection).open('leases_drain_lost');
      await kv.put('p.0', JSON.stringify({ node: 'thief' }));
      // The next renewal (a quarter TTL) finds it taken.
      for (const deadline = Date.now() + TTL_MS; leases.keeps(0, token); ) {
        assert.ok(Date.now() < deadline, 'still kept a TTL after it was taken');
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(JSON.parse((await kv.get('p.0'))!.string()).node, 'thief', "the thief's lease is left alone");
    } finally {
      finish();
      await stopped;
    }
    assert.deepEqual(released.filter(([p]) => p === 0), [[0, 'stopped']], 'released once, as stopped');
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
            ttlMs: TTL_MS,
            bucket: 'leases_restart',
            onAcquired: (p) => void events.push(`${nodeId} +${p}`),
            onReleased: (p, reason) => void events.push(`${nodeId} -${p} ${reason}`),
          }),
        );
      }
      for (const node of nodes) await node.start();
      const settled = async (what: string) => {
        const deadline = Date.now() + 15 * TTL_MS;
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
      await new Promise((r) => setTimeout(r, 2 * TTL_MS));
      events.length = 0;
      server = await startNatsServer({ port, storeDir });
      const after = await settled('after the restart');
      // Some time for a churn to show: a partition taken by a node that is not its preferred holder is handed over within a round or two.
      await new Promise((r) => setTimeout(r, 3 * TTL_MS));
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
