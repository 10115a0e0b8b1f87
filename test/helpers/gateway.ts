import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { simulatorDriverSpecs, startGateway, startRuntimeNode, type Gateway, type RuntimeNode } from '@switchboard/gateway';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { DEMO_EMAIL_DOMAIN, createLogger, demoPools, loadSettings, type Clock, type DriverSpec, type Logger, type Settings } from '@switchboard/runtime';
import { preferredOwner } from '@switchboard/runtime/internal';
import { createTestDatabase, freePort, startNatsServer, type TestDatabase, type TestNatsServer, eventually } from '@switchboard/runtime/testing';

/** A gateway on a random loopback port with a fresh data dir, and its tokens. */
export interface TestGateway {
  readonly gateway: Gateway;
  readonly url: string;
  readonly dataDir: string;
  readonly orchestratorToken: string;
  readonly teamToken: string;
  /** The in-process provider simulator (demo mode). */
  readonly sim: Simulator;
  /** A cluster's runtime nodes, each answering probes and `/metrics` at its `healthUrl` (none embedded). */
  readonly nodes: readonly RuntimeNode[];
  /** fetch against the gateway with an optional bearer token and JSON body. */
  call(method: string, path: string, options?: { token?: string; json?: unknown; headers?: Record<string, string>; body?: string | Buffer }): Promise<Response>;
  /**
   * Stops the gateway and starts it again with the same settings and data (store); a cluster's
   * nodes and the simulator of `externalProviders` or a cluster keep running, so calls on it go on.
   */
  restart(): Promise<void>;
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** PostgreSQL databases of test gateways, by data dir: a restart on the same dir finds its data. */
const databases = new Map<string, TestDatabase>();

/**
 * With SWITCHBOARD_TEST_STORE=postgres, every test gateway gets a database of its own on the test
 * PostgreSQL server (see createTestDatabase) instead of SQLite under its data dir.
 */
async function storeSettings(dir: string): Promise<Record<string, string>> {
  if (process.env.SWITCHBOARD_TEST_STORE !== 'postgres') return {};
  let database = databases.get(dir);
  if (!database) {
    database = await createTestDatabase();
    databases.set(dir, database);
  }
  return { DATABASE_URL: database.url };
}

/**
 * SWITCHBOARD_TEST_CLUSTER=1 runs a test gateway as a cluster (scripts/test.mjs does, for the suites
 * it names): its own nats-server and PostgreSQL database, the gateway in cluster mode and two runtime
 * nodes in this process, and the simulator in-process as in demo mode, but configured as real
 * providers (demo mode is embedded-only), with the demo pools.
 */
const CLUSTER = process.env.SWITCHBOARD_TEST_CLUSTER === '1';

interface TestCluster {
  readonly settings: Record<string, string | number>;
  readonly simulator: Simulator;
  readonly drivers: DriverSpec[];
  readonly nodes: readonly RuntimeNode[];
  /** Starts the runtime nodes; they log to `logger` when given (the test reads what the whole cluster logs). */
  startNodes(settings: Settings, logger?: Logger, clock?: Clock): Promise<void>;
  stop(): Promise<void>;
}

/** Secret keys of test clusters, by data dir: a restart on the same dir opens what the first run sealed. */
const secretKeys = new Map<string, string>();

/** The simulator in the test process, configured as real providers with the demo pools, on a fixed gateway port. */
interface ExternalProviders {
  readonly simulator: Simulator;
  readonly drivers: DriverSpec[];
  readonly settings: Record<string, string | number>;
}

async function startExternalProviders(dir: string, driversOf: DriversOf = simulatorDriverSpecs): Promise<ExternalProviders> {
  if (!secretKeys.has(dir)) secretKeys.set(dir, randomBytes(32).toString('hex'));
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0, lineBotUserIds: demoPools().line });
  const port = await freePort();
  const pools = demoPools();
  return {
    simulator,
    drivers: driversOf(simulator),
    settings: {
      PORT: port,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      SECRET_KEY: secretKeys.get(dir)!,
      DEMO_MODE: 'false',
      EMAIL_DOMAIN: DEMO_EMAIL_DOMAIN,
      POOL_PHONE_NUMBERS: pools.phone.join(','),
      POOL_WHATSAPP_SENDERS: pools.whatsapp.join(','),
      POOL_LINE_CHANNELS: pools.line.join(','),
    },
  };
}

/** The drivers a test gateway (and its cluster's nodes) load, pointed at the simulator; the built-in ones unless a test says. */
type DriversOf = (simulator: Simulator) => DriverSpec[];

async function startTestCluster(dir: string, driversOf: DriversOf): Promise<TestCluster> {
  const nats: TestNatsServer = await startNatsServer();
  const database = databases.get(dir) ?? (await createTestDatabase());
  databases.set(dir, database);
  const { simulator, drivers, settings } = await startExternalProviders(dir, driversOf);
  const nodes: RuntimeNode[] = [];
  return {
    simulator,
    drivers,
    nodes,
    settings: {
      ...settings,
      NATS_URL: nats.url,
      DATABASE_URL: database.url,
      CLUSTER_PARTITIONS: 8,
      CLUSTER_LEASE_TTL_MS: 1500,
    },
    async startNodes(settings, given, clock) {
      simulator.gatewayUrl = String(settings.PUBLIC_BASE_URL);
      const logger = given ?? createLogger({ level: settings.LOG_LEVEL, pretty: false });
      for (const nodeId of ['rt-1', 'rt-2']) nodes.push(await startRuntimeNode({ settings: { ...settings, NODE_ID: nodeId, HEALTH_PORT: await freePort() }, logger, drivers: driversOf(simulator), clock }));
      // A node that started first may hold the other's partitions until it hands them over: tests start
      // once each partition is with the node it prefers, so no test's first request meets a handover.
      const partitions = settings.CLUSTER_PARTITIONS;
      const ids = nodes.map((n) => n.nodeId);
      const settled = () =>
        nodes.every((n) => {
          const held = new Set(n.runtime.partitions());
          return Array.from({ length: partitions }, (_, p) => p).every((p) => held.has(p) === (preferredOwner(p, ids) === n.nodeId));
        });
      await eventually(settled, {
        timeoutMs: 30_000,
        intervalMs: 50,
        message: () => `the test cluster's partitions to settle: ${nodes.map((n) => `${n.nodeId}: ${n.runtime.partitions().join(',')}`).join('; ')}`,
      });
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      await simulator.close();
      await nats.stop();
    },
  };
}

/** Starts a real gateway for a test; settings may be overridden, and the logger replaced to read what it logs. */
export async function startTestGateway(
  overrides: Record<string, string | number> = {},
  dataDir?: string,
  options: {
    logger?: Logger;
    externalProviders?: boolean;
    /** The time agent operations read, for a test that moves it. */
    clock?: Clock;
    /** Other drivers than the built-in ones (implies externalProviders when embedded). */
    drivers?: DriversOf;
  } = {},
): Promise<TestGateway> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const cluster = CLUSTER ? await startTestCluster(dir, options.drivers ?? simulatorDriverSpecs) : undefined;
  // Embedded with the simulator outside the gateway, so that it outlives a restart (a cluster's always does).
  const external = !cluster && (options.externalProviders || options.drivers) ? await startExternalProviders(dir, options.drivers) : undefined;
  const orchestratorToken = `sb_orch_test_${randomBytes(24).toString('base64url')}`;
  const settings = loadSettings({
    env: {},
    overrides: {
      PORT: 0,
      DATA_DIR: dir,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ORCHESTRATOR_TOKEN: orchestratorToken,
      CALLBACK_RETRY_SCHEDULE: '0,10,20',
      CALLBACK_TIMEOUT_MS: 1000,
      SEND_RETRY_BASE_MS: 10,
      SEND_TIMEOUT_MS: 1000,
      ...(cluster ? cluster.settings : { ...external?.settings, ...(await storeSettings(dir)) }),
      // scripts/test.mjs runs the adapter-sensitive suites a second time with the node:http adapter.
      HTTP_ADAPTER: process.env.SWITCHBOARD_HTTP_ADAPTER ?? 'auto',
      ...overrides,
    },
  });
  await cluster?.startNodes(settings, options.logger, options.clock);
  if (external) external.simulator.gatewayUrl = String(settings.PUBLIC_BASE_URL);
  const logger = options.logger ?? createLogger({ level: settings.LOG_LEVEL, pretty: false });
  const start = (previous?: Gateway) =>
    startGateway({
      settings,
      logger,
      ...(cluster ? { cluster: 'gateway' as const, drivers: cluster.drivers } : external ? { drivers: external.drivers } : {}),
      ...(previous?.simulator ? { previousSimulator: previous.simulator } : {}),
      clock: options.clock,
    });
  let gateway = await start();
  const teamToken = await gateway.runtime.inspect.tokens.teamToken();
  const call: TestGateway['call'] = (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    return fetch(`${gateway.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  };
  return {
    get gateway() {
      return gateway;
    },
    get url() {
      return gateway.url;
    },
    dataDir: dir,
    orchestratorToken: String(settings.ORCHESTRATOR_TOKEN),
    teamToken,
    get sim() {
      return cluster?.simulator ?? external?.simulator ?? (gateway.simulator as unknown as Simulator);
    },
    nodes: cluster?.nodes ?? [],
    call,
    async restart() {
      await gateway.stop();
      gateway = await start(gateway);
    },
    async close({ keepData = false } = {}) {
      await gateway.stop();
      await cluster?.stop();
      await external?.simulator.close();
      if (keepData) return;
      rmSync(dir, { recursive: true, force: true });
      await databases.get(dir)?.drop();
      databases.delete(dir);
      secretKeys.delete(dir);
    },
  };
}

/** Provisions an agent with the team token and returns the provisioning answer. */
export async function provisionAgent(
  t: TestGateway,
  agentId: string,
  channels: string[] = ['sms', 'email', 'whatsapp', 'line', 'voice'],
  extra: Record<string, unknown> = {},
): Promise<{ agentId: string; securityToken: string; channels: Record<string, { address: string }>; signingSecret?: string }> {
  const res = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json: { agentId, displayName: agentId, channels, ...extra } });
  const body = (await res.json()) as { agentId: string; securityToken: string; channels: Record<string, { address: string }> };
  if (res.status !== 201) throw new Error(`provisioning ${agentId} failed: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
