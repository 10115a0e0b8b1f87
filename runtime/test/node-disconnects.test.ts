import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { NodeDisconnects } from '../src/cluster/node-disconnects.js';
import { PartitionLeases } from '../src/cluster/partition-leases.js';
import { eventually } from '../src/testing/eventually.js';
import { freePort, startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';

/** The product's default TTL: the takeover must come long before it. */
const TTL_MS = 3000;
const PARTITIONS = 8;

describe('a node whose NATS connection closes has its leases ended by a peer at once', () => {
  let server: TestNatsServer;
  let dir: string;
  before(async () => {
    // Clients without credentials land in APP (as the tests' plain servers let them); `sys` is the system account's user.
    dir = mkdtempSync(join(tmpdir(), 'sb-disconnects-'));
    const port = await freePort();
    const configFile = join(dir, 'nats.conf');
    writeFileSync(
      configFile,
      `listen: 127.0.0.1:${port}
jetstream { store_dir: "${join(dir, 'store')}" }
accounts {
  APP { jetstream: enabled, users: [ { user: app, password: app } ] }
  SYS { users: [ { user: sys, password: sys } ] }
}
system_account: SYS
no_auth_user: app
`,
    );
    server = await startNatsServer({ port, storeDir: join(dir, 'store'), configFile });
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('kill-like close of node A: node B holds every partition within a fraction of the TTL, under newer tokens', async () => {
    const connections: NatsConnection[] = [];
    const open = async (name: string, extra: object = {}) => {
      const c = await connect({ servers: server.url, name, ...extra });
      connections.push(c);
      return c;
    };
    const tokens = new Map<string, number>();
    const node = async (id: string) =>
      new PartitionLeases({
        connection: await open(`switchboard-${id}`),
        nodeId: id,
        partitions: PARTITIONS,
        ttlMs: TTL_MS,
        bucket: 'leases_disconnect',
        onAcquired: (p, token) => void tokens.set(`${id}/${p}`, token),
        onReleased: () => undefined,
      });
    const a = await node('node-a');
    const b = await node('node-b');
    const ended: string[] = [];
    NodeDisconnects.on(await open('switchboard-advisories-node-b', { user: 'sys', pass: 'sys' }), 'node-b', (gone) => {
      ended.push(gone);
      void b.endNode(gone);
    });
    await a.start();
    await b.start();
    try {
      await eventually(() => a.owned().length > 0 && a.owned().length + b.owned().length === PARTITIONS, {
        timeoutMs: 10 * TTL_MS,
        message: () => `the two to share the partitions (they hold ${a.owned()} / ${b.owned()})`,
      });
      const lost = a.owned();
      const closed = Date.now();
      // A's socket goes as a killed process's does; its PartitionLeases, like a frozen process, still believes it holds.
      await connections[0]!.close();
      await eventually(() => b.owned().length === PARTITIONS, { timeoutMs: 2 * TTL_MS, intervalMs: 10, message: () => `B to hold all ${PARTITIONS} partitions (it holds ${b.owned().length})` });
      const took = Date.now() - closed;
      console.log(`# disconnect advisory: B held every partition ${took} ms after A's connection closed (TTL ${TTL_MS} ms)`);
      assert.deepEqual(ended, ['node-a'], 'the advisory named node A (and nothing else)');
      assert.ok(took < TTL_MS / 2, `B took A's partitions ${took} ms after the close: the advisory, not the TTL`);
      for (const p of lost) assert.ok(tokens.get(`node-b/${p}`)! > tokens.get(`node-a/${p}`)!, `partition ${p}: B's token is newer than A's, so A's writes are fenced out`);
    } finally {
      await b.stop();
      await a.stop().catch(() => undefined);
      for (const c of connections) await c.close().catch(() => undefined);
    }
  });
});
