import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type Gateway } from '@switchboard/gateway';
import type { Simulator } from '@switchboard/provider-simulator';
import { createLogger, loadSettings, type Logger } from '@switchboard/runtime';
import { createTestDatabase, type TestDatabase } from '@switchboard/runtime/testing';

/** A gateway on a random loopback port with a fresh data dir, and its tokens. */
export interface TestGateway {
  readonly gateway: Gateway;
  readonly url: string;
  readonly dataDir: string;
  readonly orchestratorToken: string;
  readonly teamToken: string;
  /** The in-process provider simulator (demo mode). */
  readonly sim: Simulator;
  /** fetch against the gateway with an optional bearer token and JSON body. */
  call(method: string, path: string, options?: { token?: string; json?: unknown; headers?: Record<string, string>; body?: string | Buffer }): Promise<Response>;
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

/** Starts a real gateway for a test; settings may be overridden, and the logger replaced to read what it logs. */
export async function startTestGateway(
  overrides: Record<string, string | number> = {},
  dataDir?: string,
  options: { logger?: Logger } = {},
): Promise<TestGateway> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const orchestratorToken = `sb_orch_test_${Math.random().toString(36).slice(2)}`;
  const settings = loadSettings({
    env: {},
    overrides: {
      PORT: 0,
      DATA_DIR: dir,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ORCHESTRATOR_TOKEN: orchestratorToken,
      CALLBACK_RETRY_BASE_MS: 10,
      CALLBACK_TIMEOUT_MS: 1000,
      CALLBACK_MAX_ATTEMPTS: 3,
      SEND_RETRY_BASE_MS: 10,
      SEND_TIMEOUT_MS: 1000,
      ...(await storeSettings(dir)),
      // scripts/test.mjs runs the adapter-sensitive suites a second time with the node:http adapter.
      HTTP_ADAPTER: process.env.SWITCHBOARD_HTTP_ADAPTER ?? 'auto',
      ...overrides,
    },
  });
  const gateway = await startGateway({ settings, logger: options.logger ?? createLogger({ level: settings.LOG_LEVEL, pretty: false }) });
  const teamToken = await gateway.runtime.tokens.teamToken();
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
    gateway,
    url: gateway.url,
    dataDir: dir,
    orchestratorToken: String(settings.ORCHESTRATOR_TOKEN),
    teamToken,
    sim: gateway.simulator as unknown as Simulator,
    call,
    async close({ keepData = false } = {}) {
      await gateway.stop();
      if (keepData) return;
      rmSync(dir, { recursive: true, force: true });
      await databases.get(dir)?.drop();
      databases.delete(dir);
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
