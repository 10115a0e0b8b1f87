import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { startEmbedded, createLogger, loadSettings, type EmbeddedRuntime } from '@switchboard/runtime';
import { GatewayApp } from '../../src/http/app.js';
import type { HttpRequest } from '../../src/http/types.js';
import { GatewayMetrics } from '../../src/metrics.js';
import { adminOpsRoutes } from '../../src/routes/admin-ops.js';
import type { RouteDeps } from '../../src/routes/deps.js';
import { messagingRoutes } from '../../src/routes/messaging.js';
import { provisioningRoutes } from '../../src/routes/provisioning.js';

const ORCHESTRATOR = 'sb_orch_ports_test_token_0123456789abcdef';

/** A request as an adapter would hand it over, without a socket. */
function request(method: string, path: string, token: string, body?: object): HttpRequest {
  const [bare, queryString = ''] = path.split('?');
  return {
    method,
    path: bare!,
    queryString,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    rawBody: Buffer.from(body ? JSON.stringify(body) : ''),
    remoteAddress: '127.0.0.1',
  };
}

describe('the gateway pipeline over the runtime ports, without sockets', () => {
  let sim: Simulator;
  let dataDir: string;
  let runtime: EmbeddedRuntime;
  let app: GatewayApp;

  before(async () => {
    sim = await startSimulator({ host: '127.0.0.1', port: 0 });
    dataDir = mkdtempSync(join(tmpdir(), 'sb-ports-'));
    const settings = loadSettings({
      env: {},
      overrides: { DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ORCHESTRATOR_TOKEN: ORCHESTRATOR, POOL_PHONE_NUMBERS: '+15550002222' },
    });
    const logger = createLogger({ level: 'silent', pretty: false });
    runtime = await startEmbedded({ settings, logger });
    await runtime.attach({
      publicBaseUrl: 'http://127.0.0.1:9',
      drivers: [{ packageName: '@switchboard/driver-twilio', settings: { ...sim.credentials.twilio, baseUrl: sim.baseUrls.twilio } }],
      importer: (name) => import(name),
    });
    // The routes and the pipeline get the ports and nothing else of the runtime.
    const ports = runtime.ports;
    const metrics = new GatewayMetrics();
    const deps: RouteDeps = { ports, metrics, version: 'test', startedAt: Date.now(), publicBaseUrl: 'http://127.0.0.1:9' };
    app = new GatewayApp({ ports, metrics, logger, bodyLimits: { api: 1 << 20, webhook: 1 << 20 } });
    app.add(...provisioningRoutes(deps), ...messagingRoutes(deps), ...adminOpsRoutes(deps));
  });
  after(async () => {
    await runtime?.stop();
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('provisions, sends and reads the operator log through GatewayApp.handle', async () => {
    const provisioned = await app.handle(request('POST', '/api/v1/provision', ORCHESTRATOR, { agentId: 'ports-1', displayName: 'Ports', channels: ['sms'] }));
    assert.equal(provisioned.status, 201, JSON.stringify(provisioned.body));
    const { securityToken } = provisioned.body as { securityToken: string };
    const sent = await app.handle(request('POST', '/api/v1/send-message', securityToken, { channel: 'sms', to: '+15551230000', body: 'through the ports' }));
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.route, '/api/v1/send-message');
    assert.equal(sim.messages().at(-1)?.body, 'through the ports');
    const log = await app.handle(request('GET', '/admin/api/messages?agentId=ports-1', ORCHESTRATOR));
    assert.equal(log.status, 200);
    const messages = (log.body as { messages: { body: string; direction: string }[] }).messages;
    assert.deepEqual(messages.map((m) => [m.direction, m.body]), [['outbound', 'through the ports']]);
    const detail = await app.handle(request('GET', '/admin/api/agents/ports-1', ORCHESTRATOR));
    assert.equal(detail.status, 200);
    assert.equal((detail.body as { usage: { today: { actions: number } } }).usage.today.actions, 1);
  });

  it('answers refusals with the contract body: unknown token, bad body, bad filter', async () => {
    const unauthorised = await app.handle(request('POST', '/api/v1/send-message', 'sb_client_nope', { channel: 'sms', to: '+15551230000', body: 'x' }));
    assert.equal(unauthorised.status, 401);
    assert.equal((unauthorised.body as { code: string }).code, 'UNAUTHORIZED');
    const invalid = await app.handle(request('POST', '/api/v1/provision', ORCHESTRATOR, { displayName: 'x', channels: ['fax'] }));
    assert.equal(invalid.status, 400);
    assert.equal((invalid.body as { code: string }).code, 'VALIDATION_FAILED');
    const filter = await app.handle(request('GET', '/admin/api/dead-letters?status=lost', ORCHESTRATOR));
    assert.equal(filter.status, 400);
    assert.match((filter.body as { error: string }).error, /pending or acknowledged/);
  });
});
