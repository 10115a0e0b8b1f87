import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('platform routes', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway();
  });
  after(() => t.close());

  it('GET /health reports liveness in the contract shape', async () => {
    const res = await t.call('GET', '/health');
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.status, 'ok');
    assert.equal(typeof body.uptime, 'number');
    assert.match(String(body.version), /^\d+\.\d+\.\d+$/);
    assert.equal(body.environment, 'test');
    assert.equal(body.demoMode, true);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });

  it('GET /api/v1/health answers the same record', async () => {
    const body = (await (await t.call('GET', '/api/v1/health')).json()) as Record<string, unknown>;
    assert.equal(body.status, 'ok');
  });

  it('GET /health/ready probes the database for real', async () => {
    const res = await t.call('GET', '/health/ready');
    assert.equal(res.status, 200);
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    assert.equal(body.status, 'ready');
    assert.equal(body.checks.database, 'ok');
  });

  it('GET /health/ready answers 503 with the failing check when a probe fails', async () => {
    t.gateway.runtime.inspect.readiness.register('telephony', async () => {
      throw new Error('provider unreachable');
    });
    const res = await t.call('GET', '/health/ready');
    assert.equal(res.status, 503);
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    assert.equal(body.status, 'not_ready');
    assert.equal(body.checks.telephony, 'error: provider unreachable');
    t.gateway.runtime.inspect.readiness.register('telephony', async () => 'disabled');
    assert.equal((await t.call('GET', '/health/ready')).status, 200);
  });

  it('GET /metrics exposes prom-client defaults and the HTTP metrics', async () => {
    await t.call('GET', '/health');
    const res = await t.call('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const name of [
      'process_cpu_user_seconds_total',
      'switchboard_http_requests_total{route="/health",method="GET",status="200"}',
      'switchboard_http_request_duration_seconds_bucket',
      'switchboard_messages_total',
      'switchboard_webhook_rejected_total',
      'switchboard_dead_letters_pending',
      'switchboard_sse_sessions',
      'switchboard_voice_calls_active',
      'switchboard_voice_frame_delay_seconds',
    ]) {
      assert.ok(text.includes(name), `metrics lack ${name}`);
    }
  });

  it('GET /api/v1/integration-guide is markdown naming this gateway', async () => {
    const res = await t.call('GET', '/api/v1/integration-guide');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/markdown/);
    const text = await res.text();
    assert.ok(text.startsWith('# Switchboard integration guide'));
    assert.ok(text.includes(`${t.url}/api/v1/provision`));
  });

  it('unknown paths get 404 and wrong methods 405, with the error body', async () => {
    const missing = await t.call('GET', '/api/v1/nope');
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, 'NOT_FOUND');
    const wrong = await t.call('DELETE', '/health');
    assert.equal(wrong.status, 405);
    assert.equal(((await wrong.json()) as { code: string }).code, 'METHOD_NOT_ALLOWED');
  });

  it('provisions, lists, blocks channels and deprovisions an agent', async () => {
    const agent = await provisionAgent(t, 'life-1', ['sms', 'voice', 'email']);
    assert.match(agent.securityToken, /^sb_live_/);
    assert.equal(agent.channels.sms!.address, agent.channels.voice!.address, 'sms and voice share one number');
    assert.equal(agent.channels.email!.address, 'life-1@demo.switchboard.local');

    const list = (await (await t.call('GET', '/admin/api/agents', { token: t.orchestratorToken })).json()) as { agents: { agentId: string }[] };
    assert.ok(list.agents.some((a) => a.agentId === 'life-1'));

    const blocked = await t.call('POST', '/admin/api/agents/life-1/blocked-channels', {
      token: t.orchestratorToken,
      json: { blockedChannels: ['sms', 'sms', 'email'] },
    });
    assert.equal(blocked.status, 200);
    assert.deepEqual(await blocked.json(), { ok: true, agentId: 'life-1', blockedChannels: ['sms', 'email'] });

    const gone = await t.call('POST', '/api/v1/deprovision', { token: agent.securityToken, json: {} });
    assert.equal(gone.status, 200);
    const body = (await gone.json()) as { status: string; released: Record<string, string> };
    assert.equal(body.status, 'deprovisioned');
    assert.equal(body.released.sms, agent.channels.sms!.address);

    // The client token died with the agent, and the number is free again.
    assert.equal((await t.call('POST', '/api/v1/deprovision', { token: agent.securityToken, json: {} })).status, 401);
    const pools = (await (await t.call('GET', '/admin/api/pools', { token: t.orchestratorToken })).json()) as {
      entries: { address: string; agentId: string | null }[];
    };
    assert.equal(pools.entries.find((e) => e.address === agent.channels.sms!.address)?.agentId, null);
  });

  it('refuses a second agent with the same id with 409 CONFLICT', async () => {
    await provisionAgent(t, 'dup-1', ['sms']);
    const res = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json: { agentId: 'dup-1', displayName: 'again', channels: ['sms'] } });
    assert.equal(res.status, 409);
    assert.equal(((await res.json()) as { code: string }).code, 'CONFLICT');
  });

  it('deprovisioning an unknown agent is 404', async () => {
    const res = await t.call('POST', '/api/v1/deprovision', { token: t.teamToken, json: { agentId: 'never-was' } });
    assert.equal(res.status, 404);
  });

  it('adds pool entries and validates their form', async () => {
    const added = await t.call('POST', '/admin/api/pools/phone', { token: t.orchestratorToken, json: { addresses: ['+14155550999', '+14155550999'] } });
    assert.deepEqual(await added.json(), { ok: true, pool: 'phone', added: 1 });
    const bad = await t.call('POST', '/admin/api/pools/phone', { token: t.orchestratorToken, json: { addresses: ['555-1234'] } });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'VALIDATION_FAILED');
    const unknown = await t.call('POST', '/admin/api/pools/fax', { token: t.orchestratorToken, json: { addresses: ['+14155550998'] } });
    assert.equal(unknown.status, 404);
  });

  it('regenerating the team token kills the old one at once', async () => {
    const mine = (await (await t.call('GET', '/admin/api/my-token', { token: t.orchestratorToken })).json()) as { token: string };
    assert.equal(mine.token, t.teamToken);
    const fresh = (await (await t.call('POST', '/admin/api/regenerate-token', { token: t.orchestratorToken })).json()) as { token: string };
    assert.notEqual(fresh.token, mine.token);
    const body = { agentId: 'after-regen', displayName: 'x', channels: ['line'] };
    assert.equal((await t.call('POST', '/api/v1/provision', { token: mine.token, json: body })).status, 401);
    assert.equal((await t.call('POST', '/api/v1/provision', { token: fresh.token, json: body })).status, 201);
    (t as { teamToken: string }).teamToken = fresh.token;
  });

  it('an Idempotency-Key repeat returns the first result and does nothing again', async () => {
    const headers = { 'idempotency-key': 'prov-once-1' };
    const json = { agentId: 'idem-1', displayName: 'x', channels: ['whatsapp'] };
    const first = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json, headers });
    const second = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json, headers });
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await second.json(), await first.json());
    const reused = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json: { ...json, agentId: 'idem-2' }, headers });
    assert.equal(reused.status, 409);
  });
});
