import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { PartitionLeases, type LeaseEnd } from '../src/cluster/partition-leases.js';
import { eventually, steadily } from '../src/testing/eventually.js';
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
      await eventually(() => leases.owned().length === PARTITIONS, { timeoutMs: 5 * TTL_MS, intervalMs: 25, message: () => `all ${PARTITIONS} partitions taken (took ${leases.owned().length})` });
      // Another writer takes partition 0 from under the node: its next renewal finds the lease gone.
      const kv = await new Kvm(connection).open('leases_stuck');
      await kv.put('p.0', JSON.stringify({ node: 'thief' }));
      await steadily(() => [1, 2, 3].every((p) => leases.owned().includes(p)), { forMs: 3 * TTL_MS, intervalMs: 25, message: () => `still holds 1, 2 and 3 (holds ${leases.owned().join(',')})` });
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
      const settled = (what: string) =>
        eventually(
          () => {
            const owned = nodes.map((n) => n.owned());
            return owned[0]!.length > 0 && owned[1]!.length > 0 && owned[0]!.length + owned[1]!.length === 8 && owned[0]!.every((p) => !owned[1]!.includes(p)) && owned;
          },
          { timeoutMs: 15 * RESTART_TTL_MS, intervalMs: 25, message: () => `${what}: the two nodes to share the 8 partitions (they hold ${JSON.stringify(nodes.map((n) => n.owned()))})` },
        );
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

describe('partition leases renewed by one heartbeat per node', () => {
  let server: TestNatsServer;
  let connection: NatsConnection;
  before(async () => {
    server = await startNatsServer();
    connection = await connect({ servers: server.url, name: 'leases-heartbeat-test' });
  });
  after(async () => {
    await connection?.close();
    await server?.stop();
  });

  const until = async (what: string, check: () => boolean, ms: number) => {
    await eventually(check, { timeoutMs: ms, message: what });
  };
  const node = (nodeId: string, bucket: string, extra: { fit?: () => boolean; events?: string[] } = {}) =>
    new PartitionLeases({
      connection,
      nodeId,
      partitions: 8,
      ttlMs: TTL_MS,
      bucket,
      onAcquired: (p, token) => void extra.events?.push(`${nodeId} +${p}@${token}`),
      onReleased: (p, reason) => void extra.events?.push(`${nodeId} -${p} ${reason}`),
      ...(extra.fit ? { fit: extra.fit } : {}),
    });

  it('an idle pair of nodes writes no partition entry, one heartbeat per node per period', async () => {
    const a = node('beat-a', 'leases_beat');
    const b = node('beat-b', 'leases_beat');
    await a.start();
    await b.start();
    try {
      await until('the two share the 8 partitions', () => a.owned().length + b.owned().length === 8 && a.owned().length > 0 && b.owned().length > 0, 10 * TTL_MS);
      // Settled: whatever moved has moved.
      await new Promise((r) => setTimeout(r, TTL_MS));
      const kvm = new Kvm(connection);
      const [entries, beats] = [await kvm.open('leases_beat'), await kvm.open('leases_beat_nodes')];
      const seq = async () => [(await entries.status()).streamInfo.state.last_seq, (await beats.status()).streamInfo.state.last_seq];
      const [entriesBefore, beatsBefore] = await seq();
      const window = 3 * TTL_MS;
      await new Promise((r) => setTimeout(r, window));
      const [entriesAfter, beatsAfter] = await seq();
      assert.equal(entriesAfter, entriesBefore, 'no partition entry was written while idle');
      const periods = window / (TTL_MS / 4);
      // Two nodes, one heartbeat each per renewal period (a round may run early, to take a lapsed partition, but none is free here).
      assert.ok(beatsAfter! - beatsBefore! <= 2 * (periods + 2), `heartbeats written in ${window} ms: ${beatsAfter! - beatsBefore!} (at most ${2 * (periods + 2)})`);
      assert.ok(beatsAfter! - beatsBefore! >= periods, `heartbeats written in ${window} ms: ${beatsAfter! - beatsBefore!}`);
      assert.equal(a.owned().length + b.owned().length, 8, 'both still hold their share');
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('a node that cannot serve ends its heartbeat and the other takes its partitions at once, under newer tokens; it takes its share again when it can', async () => {
    const events: string[] = [];
    let fit = true;
    const a = node('fit-a', 'leases_fit', { fit: () => fit, events });
    const b = node('fit-b', 'leases_fit', { events });
    await a.start();
    await b.start();
    try {
      await until('the two share the 8 partitions', () => a.owned().length > 0 && b.owned().length > 0 && a.owned().length + b.owned().length === 8, 10 * TTL_MS);
      const given = a.owned();
      const tokens = new Map(given.map((p) => [p, Math.max(...events.filter((e) => e.startsWith(`fit-a +${p}@`)).map((e) => Number(e.split('@')[1])))]));
      fit = false;
      const since = Date.now();
      const from = events.length;
      await until('node A gives everything up', () => a.owned().length === 0, 2 * TTL_MS);
      await until('node B holds every partition', () => b.owned().length === 8, 3 * TTL_MS);
      const took = Date.now() - since;
      // Its heartbeat ended, not expired: B took over well before a TTL (a round of A, then one of B).
      assert.ok(took < TTL_MS, `B took A's partitions ${took} ms after A could not serve (TTL ${TTL_MS} ms)`);
      for (const p of given) {
        const later = events.filter((e) => e.startsWith(`fit-b +${p}@`)).map((e) => Number(e.split('@')[1]));
        assert.ok(later.some((t) => t > tokens.get(p)!), `partition ${p} taken by B under a newer token than A's ${tokens.get(p)}: ${later.join(',')}`);
      }
      assert.deepEqual(events.slice(from).filter((e) => e.startsWith('fit-a -')).sort(), given.map((p) => `fit-a -${p} lost`).sort(), 'A gave them all up without waiting for work to drain');
      assert.deepEqual(a.problems().length, 0, 'not yet silent for two TTLs');
      await new Promise((r) => setTimeout(r, 2 * TTL_MS));
      assert.match(a.problems().join('; '), /lease heartbeat not through/);
      fit = true;
      await until('node A takes its share again', () => a.owned().length > 0 && a.owned().length + b.owned().length === 8, 10 * TTL_MS);
      assert.deepEqual(a.problems(), []);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
