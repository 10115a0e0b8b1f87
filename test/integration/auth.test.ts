import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

type Who = 'none' | 'invalid' | 'client' | 'otherClient' | 'team' | 'orchestrator';
const WHO: Who[] = ['none', 'invalid', 'client', 'otherClient', 'team', 'orchestrator'];

interface Case {
  name: string;
  method: string;
  path: string;
  /** Builds the body; called per request so each provisioning uses a fresh agent id. */
  json?: (n: number) => unknown;
  expect: Record<Who, number>;
}

describe('auth matrix', () => {
  let t: TestGateway;
  const tokens: Partial<Record<Who, string>> = {};
  let n = 0;
  before(async () => {
    t = await startTestGateway({ AUTH_LOCKOUT_ATTEMPTS: 1000 });
    tokens.client = (await provisionAgent(t, 'matrix-own', ['line'])).securityToken;
    tokens.otherClient = (await provisionAgent(t, 'matrix-other', ['line'])).securityToken;
    tokens.team = t.teamToken;
    tokens.orchestrator = t.orchestratorToken;
    tokens.invalid = 'sb_live_not-a-real-token';
  });
  after(() => t.close());

  const admin = { none: 401, invalid: 401, client: 403, otherClient: 403, team: 403, orchestrator: 200 } as const;
  const cases: Case[] = [
    { name: 'health', method: 'GET', path: '/health', expect: { none: 200, invalid: 200, client: 200, otherClient: 200, team: 200, orchestrator: 200 } },
    { name: 'openapi', method: 'GET', path: '/api/v1/openapi.json', expect: { none: 200, invalid: 200, client: 200, otherClient: 200, team: 200, orchestrator: 200 } },
    {
      name: 'provision',
      method: 'POST',
      path: '/api/v1/provision',
      json: (i) => ({ agentId: `matrix-new-${i}`, displayName: 'm', channels: ['line'] }),
      expect: { none: 401, invalid: 401, client: 403, otherClient: 403, team: 201, orchestrator: 201 },
    },
    {
      name: 'deprovision another agent (client tokens act for matrix-own only)',
      method: 'POST',
      path: '/api/v1/deprovision',
      json: () => ({ agentId: 'matrix-missing' }),
      expect: { none: 401, invalid: 401, client: 403, otherClient: 403, team: 404, orchestrator: 404 },
    },
    { name: 'admin agents', method: 'GET', path: '/admin/api/agents', expect: admin },
    { name: 'admin pools', method: 'GET', path: '/admin/api/pools', expect: admin },
    { name: 'admin my-token', method: 'GET', path: '/admin/api/my-token', expect: admin },
    {
      name: 'admin blocked channels',
      method: 'POST',
      path: '/admin/api/agents/matrix-own/blocked-channels',
      json: () => ({ blockedChannels: [] }),
      expect: admin,
    },
    { name: 'admin add pool entries', method: 'POST', path: '/admin/api/pools/line', json: () => ({ addresses: ['U' + 'a'.repeat(32)] }), expect: admin },
  ];

  for (const c of cases) {
    it(`${c.method} ${c.path} (${c.name})`, async () => {
      for (const who of WHO) {
        const res = await t.call(c.method, c.path, { ...(tokens[who] ? { token: tokens[who] } : {}), ...(c.json ? { json: c.json(n++) } : {}) });
        assert.equal(res.status, c.expect[who], `${who} → ${res.status}`);
        if (res.status >= 400) {
          const body = (await res.json()) as { error: string; code: string };
          assert.equal(typeof body.error, 'string');
          assert.equal(body.code, { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' }[res.status]);
        } else {
          await res.arrayBuffer();
        }
      }
    });
  }

  it('a client token deprovisions its own agent without naming it', async () => {
    const agent = await provisionAgent(t, 'matrix-self', ['line']);
    const res = await t.call('POST', '/api/v1/deprovision', { token: agent.securityToken, json: {} });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { agentId: string }).agentId, 'matrix-self');
  });

  it('a team token must name the agent', async () => {
    const res = await t.call('POST', '/api/v1/deprovision', { token: t.teamToken, json: {} });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { code: string }).code, 'VALIDATION_FAILED');
  });

  it('tokens are stored only as hashes (and the team token sealed)', async () => {
    const rows = await t.gateway.runtime.inspect.stored.rows<{ token_hash: string; sealed_token: string | null }>('SELECT token_hash, sealed_token FROM tokens');
    const everything = JSON.stringify(rows);
    for (const token of [tokens.client!, tokens.team!, tokens.orchestrator!]) assert.ok(!everything.includes(token), 'a clear token is stored');
    assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash)));
  });
});

/** Opens GET /sse with a token and answers its status; a stream that opened is closed again. */
async function sseStatus(t: TestGateway, token: string, headers: Record<string, string> = {}): Promise<number> {
  const controller = new AbortController();
  const res = await fetch(`${t.url}/sse?token=${encodeURIComponent(token)}`, { headers, signal: controller.signal });
  controller.abort();
  return res.status;
}

describe('auth lockout: wrong tokens are refused, a correct token always passes', () => {
  let t: TestGateway;
  let client: string;
  before(async () => {
    t = await startTestGateway({ AUTH_LOCKOUT_ATTEMPTS: 3, AUTH_LOCKOUT_SECONDS: 60 });
    client = (await provisionAgent(t, 'lockout-own', ['line'])).securityToken;
  });
  after(() => t.close());

  it('after wrong ?token= on /sse, wrong tokens get 429 with Retry-After and correct ones go through, X-Forwarded-For from an untrusted peer ignored', async () => {
    // Each failure claims another address; with no trusted proxy, the header is the client's own words.
    for (let i = 0; i < 3; i++) assert.equal(await sseStatus(t, `wrong-${i}`, { 'x-forwarded-for': `203.0.113.${i}` }), 401);
    const locked = await t.call('GET', '/admin/api/agents', { token: 'wrong-again', headers: { 'x-forwarded-for': '203.0.113.99' } });
    assert.equal(locked.status, 429, 'the lock stays on the socket address');
    assert.ok(Number(locked.headers.get('retry-after')) > 0);
    assert.equal(((await locked.json()) as { code: string }).code, 'RATE_LIMITED');
    assert.equal(await sseStatus(t, 'wrong-again'), 429);
    assert.equal((await t.call('POST', '/admin/api/session', { json: { token: 'wrong-again' } })).status, 429, 'admin sign-in shares the lock');

    assert.equal((await t.call('GET', '/admin/api/agents', { token: t.orchestratorToken })).status, 200, 'orchestrator');
    assert.equal((await t.call('GET', '/api/v1/channel-status?agentId=lockout-own', { token: t.teamToken })).status, 200, 'team');
    assert.equal((await t.call('GET', '/api/v1/channel-status', { token: client })).status, 200, 'client');
    assert.equal(await sseStatus(t, client), 200, 'client on /sse');
    assert.equal((await t.call('POST', '/admin/api/session', { json: { token: t.orchestratorToken } })).status, 200, 'admin sign-in');
    assert.equal((await t.call('GET', '/admin/api/agents', { token: 'wrong-after' })).status, 429, 'correct tokens do not lift the lock');
    assert.equal((await t.call('GET', '/health')).status, 200, 'public routes stay open');
  });
});

describe('auth lockout behind trusted proxies (TRUSTED_PROXIES)', () => {
  let t: TestGateway;
  before(async () => {
    // The test client on loopback stands in for the load balancer.
    t = await startTestGateway({ AUTH_LOCKOUT_ATTEMPTS: 3, AUTH_LOCKOUT_SECONDS: 60, TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' });
  });
  after(() => t.close());

  const as = (forwardedFor: string) => ({ 'x-forwarded-for': forwardedFor });

  it("locks out the client X-Forwarded-For names, not the proxy's address or the other clients behind it", async () => {
    for (let i = 0; i < 3; i++) assert.equal(await sseStatus(t, `wrong-${i}`, as('198.51.100.7')), 401);
    assert.equal((await t.call('GET', '/admin/api/agents', { token: 'wrong', headers: as('198.51.100.7') })).status, 429);
    // What the client wrote itself is left of what the proxies appended: the right-most untrusted entry counts.
    assert.equal((await t.call('GET', '/admin/api/agents', { token: 'wrong', headers: as('192.0.2.1, 198.51.100.7, 10.1.2.3') })).status, 429);
    assert.equal((await t.call('GET', '/admin/api/agents', { token: 'wrong', headers: as('198.51.100.8') })).status, 401, 'another client');
    assert.equal((await t.call('GET', '/admin/api/agents', { token: 'wrong', headers: as('198.51.100.7, 198.51.100.9') })).status, 401, 'a forged entry');
    assert.equal((await t.call('GET', '/admin/api/agents', { token: t.orchestratorToken, headers: as('198.51.100.7') })).status, 200);
  });
});
