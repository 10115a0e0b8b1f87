import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { pino } from 'pino';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { MemoryBus } from '../src/bus/memory-bus.js';
import { partitionOf } from '../src/cluster/partitions.js';
import { createLogger, type Logger } from '../src/logger.js';
import { startEmbedded, type EmbeddedRuntime } from '../src/roles/embedded.js';
import { startNode, type RuntimeNodeRuntime } from '../src/roles/node.js';
import { loadSettings } from '../src/settings/load.js';
import { openStore } from '../src/store/store.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { createTestDatabase, type TestDatabase } from '../src/testing/postgres.js';
import { eventually } from '../src/testing/eventually.js';

const PARTITIONS = 8;
const TTL_MS = 1500;
const logger = createLogger({ level: 'silent', pretty: false });

let server: TestNatsServer;
let sim: Simulator;
let dataDir: string;
let database: TestDatabase;
const runtimes: { stop(): Promise<void> }[] = [];
const connections: NatsConnection[] = [];
const SECRET_KEY = randomBytes(32).toString('base64');
before(async () => {
  server = await startNatsServer();
  sim = await startSimulator({ host: '127.0.0.1', port: 0 });
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'sb-cluster-runtime-'));
});
after(async () => {
  for (const runtime of runtimes) await runtime.stop().catch(() => undefined);
  for (const c of connections) if (!c.isClosed()) await c.close();
  await sim?.close();
  await server?.stop();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A cluster node's settings: this test's NATS server and PostgreSQL database, the simulator as provider. */
function nodeSettings(nodeId: string, extra: Record<string, string | number> = {}) {
  const c = sim.credentials;
  return loadSettings({
    env: {},
    overrides: {
      DATA_DIR: dataDir,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ORCHESTRATOR_TOKEN: 'sb_orch_cluster_test_token_0123456789',
      SEND_RETRY_BASE_MS: 10,
      SEND_TIMEOUT_MS: 2000,
      NATS_URL: server.url,
      DATABASE_URL: database.url,
      SECRET_KEY,
      PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      TWILIO_ACCOUNT_SID: c.twilio.accountSid,
      TWILIO_AUTH_TOKEN: c.twilio.authToken,
      TWILIO_BASE_URL: sim.baseUrls.twilio,
      NODE_ID: nodeId,
      CLUSTER_PARTITIONS: PARTITIONS,
      CLUSTER_LEASE_TTL_MS: TTL_MS,
      POOL_PHONE_NUMBERS: Array.from({ length: 20 }, (_, i) => `+1415555${String(1000 + i)}`).join(','),
      ...extra,
    },
  });
}

const twilio = () => [{ packageName: '@switchboard/driver-twilio', settings: { ...sim.credentials.twilio, baseUrl: sim.baseUrls.twilio } }];

/** A full runtime node (store, limits, drivers against the simulator) on the NATS bus, placed by leases. */
async function startRuntimeNode(nodeId: string, log: Logger = logger, leaseBucket?: string): Promise<RuntimeNodeRuntime> {
  const runtime = await startNode({ settings: nodeSettings(nodeId), logger: log, ...(leaseBucket ? { leaseBucket } : {}) });
  runtimes.push(runtime);
  return runtime;
}

async function attachNode(runtime: RuntimeNodeRuntime, importer: (name: string) => Promise<unknown> = (name) => import(name)): Promise<RuntimeNodeRuntime> {
  await runtime.attach({ publicBaseUrl: 'http://127.0.0.1:9', drivers: twilio(), importer });
  return runtime;
}

/** An embedded runtime (its data dir locked) on a bus of its own. */
async function startPlain(dir: string): Promise<EmbeddedRuntime> {
  const settings = loadSettings({ env: {}, overrides: { DATA_DIR: dir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ORCHESTRATOR_TOKEN: 'sb_orch_cluster_test_token_0123456789' } });
  const runtime = await startEmbedded({ settings, logger, bus: new MemoryBus() });
  runtimes.push(runtime);
  return runtime;
}

describe('full runtimes as cluster nodes', () => {
  it('two runtime nodes: 50 concurrent sends through both against a limit of 10 send exactly 10 to the provider', async () => {
    const a = await attachNode(await startRuntimeNode('rt-a'));
    const b = await attachNode(await startRuntimeNode('rt-b'));
    const owned = () => [a.placement.leases.owned(), b.placement.leases.owned()] as const;
    await eventually(() => owned()[0].length > 0 && owned()[1].length > 0 && owned()[0].length + owned()[1].length === PARTITIONS, {
      timeoutMs: 6 * TTL_MS,
      intervalMs: 25,
      message: () => `the nodes to split the partitions (they hold ${owned()[0]} / ${owned()[1]})`,
    });
    const agentIds = ['limited-1', 'limited-2', 'limited-3', 'limited-4'];
    assert.ok(new Set(agentIds.map((id) => (a.placement.leases.holds(partitionOf(id, PARTITIONS)) ? 'a' : 'b'))).size === 2, 'the agents are spread over both nodes');
    for (const agentId of agentIds) {
      await a.inspect.agents.call('provision', agentId, { displayName: agentId, channels: ['sms'] });
      await b.inspect.agents.call('setLimits', agentId, { overrides: { actionsPerDay: 10 }, markupPercent: null });
      const before = sim.messages().length;
      // Half the sends enter through each node's client, as through two gateways.
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).inspect.agents.call('send', agentId, { channel: 'sms', to: '+14155550100', body: `hello ${i}` })),
      );
      const sent = results.filter((r) => r.status === 'fulfilled').length;
      const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code as string);
      assert.equal(sent, 10, `${agentId}: ${sent} sent`);
      assert.deepEqual([...new Set(refused)], ['RATE_LIMITED']);
      assert.equal(sim.messages().length - before, 10, 'the provider received exactly 10');
    }
  });

  it('a node whose tenure of a partition was taken over in the store stores no send for its agents: UNAVAILABLE, nothing written, nothing sent', async () => {
    const a = runtimes[0] as RuntimeNodeRuntime;
    const partition = a.placement.leases.owned()[0]!;
    const agentId = Array.from({ length: 200 }, (_, i) => `fenced-${i}`).find((id) => partitionOf(id, PARTITIONS) === partition)!;
    await a.inspect.agents.call('provision', agentId, { displayName: agentId, channels: ['sms'] });
    const ok = await a.inspect.agents.call('send', agentId, { channel: 'sms', to: '+14155550100', body: 'under my own tenure' });
    assert.equal(ok.success, true);
    // What a node sees when its lease lapsed and another node took the partition over (and wrote its
    // tenure) while this one still believes, for a moment, that it holds it.
    // The next holder writes through its own connection to the shared store, as another node would.
    const nextHolder = await openStore({ dataDir, databaseUrl: database.url });
    const mine = (await nextHolder.tenures.token(partition))!;
    await nextHolder.tenures.takeOver({ partition, token: mine + 1_000_000 }, 'the-next-holder');
    const before = sim.messages().length;
    try {
      await assert.rejects(
        a.inspect.agents.call('send', agentId, { channel: 'sms', to: '+14155550100', body: 'after the takeover' }, { timeoutMs: 5000 }),
        (err: { code?: string }) => err.code === 'UNAVAILABLE',
      );
      assert.equal(sim.messages().length, before, 'nothing went to the provider');
      const stored = await a.inspect.stored.rows<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE body = 'after the takeover'");
      assert.equal(Number(stored[0]!.n), 0, 'nothing was stored');
      const usage = (await a.inspect.stored.usage(agentId)).length;
      assert.equal(usage, 1, 'only the first send is in the usage');
    } finally {
      await nextHolder.tenures.takeOver({ partition, token: mine }, 'rt-a');
      await nextHolder.close();
    }
  });

  it('an embedded runtime refuses a second one on the same store (the data-dir lock); nodes share theirs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-cluster-control-'));
    try {
      await startPlain(dir);
      await assert.rejects(startPlain(dir), /in use by another Switchboard server/);
    } finally {
      for (const runtime of runtimes.splice(2)) await runtime.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a node takes its leases only once its drivers are loaded, however long that blocks, and logs each change of its partitions in one line', async () => {
    const lines: string[] = [];
    const captured = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const runtime = await startNode({ settings: nodeSettings('rt-order', { LOG_LEVEL: 'info' }), logger: captured, leaseBucket: 'sb_leases_order' });
    try {
      assert.deepEqual(runtime.partitions(), [], 'no partition is taken before the drivers are loaded');
      // A vendor SDK that blocks the event loop for two lease lifetimes while it loads.
      await attachNode(runtime, (name) => {
        for (const until = Date.now() + 2 * TTL_MS; Date.now() < until; );
        return import(name);
      });
      await eventually(() => runtime.partitions().length >= PARTITIONS, { timeoutMs: 10 * TTL_MS, message: 'the node holds every partition' });
      assert.equal(runtime.partitions().length, PARTITIONS, 'the only node of its bucket holds every partition');
      await new Promise((r) => setTimeout(r, TTL_MS));
      const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg).filter((m) => m.startsWith('partition'));
      assert.deepEqual(messages, [`partitions acquired: 0-${PARTITIONS - 1} (${PARTITIONS})`], 'one line for the round that took them; none lost or lapsed');
    } finally {
      await runtime.stop();
    }
    assert.equal((JSON.parse(lines.findLast((l) => l.includes('partitions handed over'))!) as { msg: string }).msg, `partitions handed over: 0-${PARTITIONS - 1} (${PARTITIONS})`);
  });
});
