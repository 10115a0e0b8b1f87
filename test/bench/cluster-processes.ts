import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, startNatsServer, TEST_POSTGRES_SERVER } from '@switchboard/runtime/testing';
import { spawnServer, type ChildServer } from './children.js';
import { onExit } from './exit-cleanup.js';
import { freePort, startSimulatorProcess, type SimulatorProcess } from './live-gateway.js';
import { pidsWhoseCommandLineHas } from './proc.js';
import type { BenchContext, CpuPart } from './types.js';

/** A cluster the bench started: NATS, a fresh PostgreSQL database, the simulator, one gateway and runtime nodes, each its own process. */
export interface ClusterUnderTest {
  /** The gateway's origin, also the cluster's PUBLIC_BASE_URL. */
  readonly url: string;
  readonly orchestratorToken: string;
  readonly sim: SimulatorProcess;
  readonly gateway: ChildServer;
  readonly nodes: readonly ChildServer[];
  /** CPU parts for a probe: the gateway, each runtime node, nats-server, and this database's PostgreSQL backends. */
  readonly cpuParts: readonly CpuPart[];
  /** One query on the cluster's database from this process. */
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Starts a runtime node again under its name and settings (after a kill); `nodes` holds the new process from then on. */
  restartNode(name: string): Promise<ChildServer>;
}

/**
 * A nats-server whose clients need no credentials (an application account as the default user) and
 * with a system account, so that runtime nodes given NATS_SYSTEM_USER hear its disconnect advisories
 * as a production cluster's do (deploy/nats).
 */
function advisoryConfig(port: number, storeDir: string, password: string): string {
  return [
    `listen: 127.0.0.1:${port}`,
    `jetstream { store_dir: "${storeDir}" }`,
    'accounts {',
    '  APP: { jetstream: enabled, users: [ { user: app, password: "' + password + '" } ] }',
    '  SYS: { users: [ { user: sys, password: "' + password + '" } ] }',
    '}',
    'system_account: SYS',
    'no_auth_user: app',
    '',
  ].join('\n');
}

/**
 * Starts a cluster as docs/cluster.md describes it, from source, on loopback: nats-server with
 * JetStream and a new database on the local PostgreSQL (both as the cluster tests start them), the
 * provider simulator, then `switchboard runtime` × `runtimeNodes` and one `switchboard gateway`
 * with every setting at its default but the ones a cluster needs. Everything, the database and the
 * temp dirs included, is removed when the scenario ends, and on any exit of the bench.
 */
export async function startCluster(
  ctx: BenchContext,
  options: {
    runtimeNodes: number;
    phoneNumbers: readonly string[];
    /** Runtime nodes hear the server's disconnect advisories (a system account): a crashed node's partitions are taken at once. */
    advisories?: boolean;
  },
): Promise<ClusterUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cluster-bench-'));
  const removeDir = onExit(() => rmSync(dir, { recursive: true, force: true }));
  ctx.defer(removeDir);

  ctx.log(`starting nats-server (JetStream${options.advisories ? ', a system account for disconnect advisories' : ''}) and a fresh PostgreSQL database`);
  const systemPassword = randomBytes(12).toString('hex');
  const nats = await startNatsWith(dir, options.advisories ? systemPassword : undefined);
  const killNats = onExit(() => {
    nats.process.kill('SIGKILL');
    rmSync(nats.storeDir, { recursive: true, force: true });
  });
  ctx.defer(async () => {
    await nats.stop();
    killNats();
  });
  const database = await createTestDatabase();
  const databaseName = new URL(database.url).pathname.slice(1);
  // An interrupted bench cannot await; psql drops the database synchronously on the way out.
  const dropDatabase = onExit(() => {
    spawnSync('psql', [TEST_POSTGRES_SERVER, '-qc', `DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`], { stdio: 'ignore', timeout: 10_000 });
  });
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  ctx.defer(async () => {
    await pool.end();
    await database.drop();
    dropDatabase();
  });

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { server: simulator, sim } = await startSimulatorProcess(['--gateway-url', url]);
  ctx.defer(() => simulator.stop());

  const envFile = join(dir, 'cluster.env');
  writeFileSync(envFile, '');
  const orchestratorToken = `sb_orch_${randomBytes(16).toString('hex')}`;
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    NATS_URL: nats.url,
    DATABASE_URL: database.url,
    SECRET_KEY: randomBytes(32).toString('hex'),
    PUBLIC_BASE_URL: url,
    ORCHESTRATOR_TOKEN: orchestratorToken,
    DATA_DIR: dir,
    DEMO_MODE: 'false',
    TWILIO_ACCOUNT_SID: sim.credentials.twilio!.accountSid!,
    TWILIO_AUTH_TOKEN: sim.credentials.twilio!.authToken!,
    TWILIO_BASE_URL: sim.baseUrls.twilio!,
    POOL_PHONE_NUMBERS: options.phoneNumbers.join(','),
    LIMIT_ACTIONS_PER_MINUTE: '0',
  };
  const settings = ['--settings', envFile];
  const advisories: Record<string, string> = options.advisories ? { NATS_SYSTEM_USER: 'sys', NATS_SYSTEM_PASSWORD: systemPassword } : {};
  const startNode = (name: string) =>
    spawnServer({ name, args: ['gateway/src/cli.ts', 'runtime', ...settings], env: { ...env, ...advisories, NODE_ID: name }, ready: /runtime node \S+ is running/ });
  ctx.log(`starting ${options.runtimeNodes} runtime nodes and a gateway (each its own process, from source)`);
  const started = await Promise.allSettled([
    spawnServer({ name: 'gateway', args: ['gateway/src/cli.ts', 'gateway', '--port', String(port), ...settings], env: { ...env, NODE_ID: 'gw-1' }, ready: /API:\s+http/ }),
    ...Array.from({ length: options.runtimeNodes }, (_, i) => startNode(`rt-${i + 1}`)),
  ]);
  for (const result of started) if (result.status === 'fulfilled') ctx.defer(() => result.value.server.stop());
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  const [gateway, ...nodes] = started.map((r) => (r as PromiseFulfilledResult<{ server: ChildServer }>).value.server);

  const backendTitle = ` ${databaseName} `;
  const cpuParts: CpuPart[] = [
    { whose: 'gateway', pids: () => [gateway!.pid] },
    // By name: a node restarted after a kill is the same part under a new pid.
    ...nodes.map(({ name }) => ({ whose: name, pids: () => [nodes.find((n) => n.name === name)!.pid] })),
    { whose: 'nats-server', pids: () => [nats.process.pid!] },
    // The cluster's connections only (this harness's pool is idle during a window); the server's shared WAL writer and checkpointer are not counted.
    { whose: 'postgres backends', pids: () => pidsWhoseCommandLineHas(backendTitle) },
  ];
  return {
    url,
    orchestratorToken,
    sim,
    gateway: gateway!,
    nodes,
    cpuParts,
    query: async (sql, params) => (await pool.query(sql, params)).rows,
    async restartNode(name) {
      const { server } = await startNode(name);
      ctx.defer(() => server.stop());
      nodes.splice(nodes.findIndex((n) => n.name === name), 1, server);
      return server;
    },
  };
}

/** nats-server as the cluster tests start it, or, with a system password, with the accounts of {@link advisoryConfig}. */
async function startNatsWith(dir: string, systemPassword: string | undefined) {
  if (systemPassword === undefined) return startNatsServer();
  const port = await freePort();
  const storeDir = mkdtempSync(join(dir, 'nats-'));
  const configFile = join(dir, 'nats.conf');
  writeFileSync(configFile, advisoryConfig(port, storeDir, systemPassword));
  return startNatsServer({ port, storeDir, configFile });
}
