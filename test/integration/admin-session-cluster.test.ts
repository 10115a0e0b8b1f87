import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, freePort, startNatsServer, type TestDatabase, type TestNatsServer, eventually } from '@switchboard/runtime/testing';
import { startClusterProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { adminRead, signIn, signOut, type AdminSession } from '../helpers/admin-session.js';

/** Polls until the session's cookie is refused on `url`; answers how long that took, or fails after `ms`. */
async function refusedWithin(url: string, session: AdminSession, ms: number): Promise<number> {
  const started = Date.now();
  let status = 0;
  await eventually(async () => (status = await adminRead(url, session)) === 401, { timeoutMs: ms, intervalMs: 100, message: () => `the cookie to be refused on ${url} after sign-out (it got ${status})` });
  return Date.now() - started;
}

describe('admin sessions across gateways (cluster: two gateway processes on one PostgreSQL store)', () => {
  let nats: TestNatsServer;
  let database: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  const gateways = new Map<string, ClusterProcess & { url: string }>();
  const token = `sb_orch_${randomBytes(16).toString('hex')}`;

  const startGateway = async (name: string, extra: Record<string, string> = {}) => {
    const port = await freePort();
    const process = await startClusterProcess(name, ['gateway/src/cli.ts', 'gateway', '--port', String(port)], { ...env, NODE_ID: name, ...extra }, /API:\s+http/);
    const gateway = Object.assign(process, { url: `http://127.0.0.1:${port}` });
    gateways.set(name, gateway);
    return gateway;
  };

  before(async () => {
    nats = await startNatsServer();
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sessions-cluster-'));
    env = {
      NATS_URL: nats.url,
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL: 'http://127.0.0.1:1',
      ORCHESTRATOR_TOKEN: token,
      DATA_DIR: dataDir,
      DEMO_MODE: 'false',
    };
    await startGateway('gw-1');
    await startGateway('gw-2');
  });
  after(async () => {
    await Promise.all([...gateways.values()].map((g) => g.kill('SIGTERM')));
    await nats?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a sign-out on one gateway ends the session on the other within seconds, on itself at once', async (t) => {
    const [one, two] = [gateways.get('gw-1')!, gateways.get('gw-2')!];
    const session = await signIn(one.url, token);
    assert.equal(await adminRead(two.url, session), 200, 'a session works on every gateway');
    await signOut(two.url, session);
    assert.equal(await adminRead(two.url, session), 401, 'at once where it signed out');
    // Each gateway reads the epoch at most every 2 s; 10 s is the bound with room for a loaded machine.
    t.diagnostic(`refused on the other gateway ${await refusedWithin(one.url, session, 10_000)} ms after sign-out`);
  });

  it('a gateway restarted with a new ORCHESTRATOR_TOKEN refuses sessions of the old one, and so does the other', async () => {
    const session = await signIn(gateways.get('gw-1')!.url, token);
    await gateways.get('gw-2')!.kill('SIGTERM');
    const newToken = `sb_orch_${randomBytes(16).toString('hex')}`;
    const two = await startGateway('gw-2', { ORCHESTRATOR_TOKEN: newToken });
    assert.equal(await adminRead(two.url, session), 401);
    await refusedWithin(gateways.get('gw-1')!.url, session, 10_000);
    assert.equal(await adminRead(two.url, await signIn(two.url, newToken)), 200);
  });
});
