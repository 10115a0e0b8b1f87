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
});
