import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startTestDeployment, type TestDeployment } from '../helpers/deployment.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { request as httpRequest } from 'node:http';
import { eventually } from '@switchboard/runtime/testing';

const SID = `AC${'0'.repeat(32)}`;

describe('admin API: status, dashboard and credential tests (demo mode)', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway();
  });
  after(() => t.close());

  it('status reports version, demo mode, providers with live checks, and no secret', async () => {
    const res = await t.call('GET', '/admin/api/status', { token: t.orchestratorToken });
    assert.equal(res.status, 200);
    const text = await res.text();
    const body = JSON.parse(text);
    assert.equal(body.demoMode, true);
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.equal(body.publicBaseUrl, t.url);
    for (const kind of ['telephony', 'email', 'tts', 'stt', 'chat']) {
      assert.equal(body.providers[kind].configured, true, kind);
      assert.equal(body.providers[kind].check.ok, true, `${kind}: ${body.providers[kind].check.message}`);
    }
    assert.equal(body.providers.telephony.provider, 'twilio');
    assert.equal(body.settings.ORCHESTRATOR_TOKEN, true);
    assert.equal(body.webhooks.sms, `${t.url}/webhooks/{agentId}/sms`);
    assert.ok(!text.includes(t.orchestratorToken), 'the orchestrator token is not in the status');
    const sim = t.sim.credentials;
    assert.ok(!text.includes(sim.twilio.authToken) && !text.includes(sim.resend.apiKey) && !text.includes(sim.elevenlabs.apiKey));
  });

  it('dashboard counts agents, usage, dead letters and gives the chart series', async () => {
    await provisionAgent(t, 'dash-1', ['sms']);
    const res = await t.call('GET', '/admin/api/dashboard', { token: t.orchestratorToken });
    assert.equal(res.status, 200);
    const body = await res.json() as any;
    assert.equal(body.agents.total, 1);
    assert.equal(body.agents.active, 1);
    assert.equal(body.series.days.length, 14);
    assert.equal(body.series.days[13].date, new Date().toISOString().slice(0, 10));
    assert.equal(typeof body.usage.today.cost, 'number');
    assert.equal(body.calls.active, 0);
    assert.ok(Array.isArray(body.alerts));
  });

  it('accepts the simulator credentials through the vendor SDKs', async () => {
    const c = t.sim.credentials;
    for (const [path, json] of [
      ['/admin/api/test/twilio', { accountSid: c.twilio.accountSid, authToken: c.twilio.authToken }],
      ['/admin/api/test/resend', { apiKey: c.resend.apiKey }],
      ['/admin/api/test/elevenlabs', { apiKey: c.elevenlabs.apiKey }],
    ] as const) {
      const res = await t.call('POST', path, { token: t.orchestratorToken, json });
      assert.equal(res.status, 200, path);
      const body = await res.json() as any;
      assert.equal(body.ok, true, `${path}: ${body.message}`);
    }
  });

  it('answers ok:false with what to fix for wrong credentials, never a 5xx', async () => {
    const cases = [
      ['/admin/api/test/twilio', { accountSid: t.sim.credentials.twilio.accountSid, authToken: 'wrong-token-0000' }, /refused.*Twilio console/],
      ['/admin/api/test/twilio', { accountSid: 'not-a-sid', authToken: 'x' }, /AC followed by 32/],
      ['/admin/api/test/resend', { apiKey: 're_wrong' }, /Resend/],
      ['/admin/api/test/elevenlabs', { apiKey: 'wrong' }, /ElevenLabs/],
      ['/admin/api/test/elevenlabs', { apiKey: '' }, /Enter an API key/],
    ] as const;
    for (const [path, json, message] of cases) {
      const res = await t.call('POST', path, { token: t.orchestratorToken, json });
      assert.equal(res.status, 200, path);
      const body = await res.json() as any;
      assert.equal(body.ok, false, path);
      assert.match(body.message, message);
      assert.ok(!JSON.stringify(body).includes('wrong-token-0000'), 'the credential is not echoed');
    }
  });

  it('refuses wrong types and missing fields with the contract error body', async () => {
    for (const [path, json] of [
      ['/admin/api/test/twilio', { accountSid: SID }],
      ['/admin/api/test/twilio', { accountSid: 42, authToken: 'x' }],
      ['/admin/api/test/resend', { apiKey: ['x'] }],
      ['/admin/api/test/elevenlabs', {}],
      ['/admin/api/save', { settings: 'PORT=1' }],
      ['/admin/api/save', { settings: { PORT: { nested: 1 } } }],
    ] as const) {
      const res = await t.call('POST', path, { token: t.orchestratorToken, json });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(json)}`);
      assert.equal((await res.json() as any).code, 'VALIDATION_FAILED');
    }
  });

  it('needs the orchestrator token: 401 without one, 403 with the team token', async () => {
    const routes = [
      ['GET', '/admin/api/status'],
      ['GET', '/admin/api/dashboard'],
      ['POST', '/admin/api/test/twilio'],
      ['POST', '/admin/api/test/resend'],
      ['POST', '/admin/api/test/elevenlabs'],
      ['POST', '/admin/api/save'],
      ['POST', '/admin/api/deploy'],
    ] as const;
    for (const [method, path] of routes) {
      assert.equal((await t.call(method, path)).status, 401, `${method} ${path}`);
      const res = await t.call(method, path, { token: t.teamToken, json: method === 'POST' ? {} : undefined });
      assert.equal(res.status, 403, `${method} ${path} with the team token`);
    }
  });

  it('save and deploy say so when the server was not started from an env file', async () => {
    const save = await t.call('POST', '/admin/api/save', { token: t.orchestratorToken, json: { settings: { MARKUP_PERCENT: 5 } } });
    assert.equal(save.status, 409);
    assert.equal((await t.call('POST', '/admin/api/deploy', { token: t.orchestratorToken })).status, 409);
  });
});

describe('admin API: save and deploy', () => {
  let d: TestDeployment;
  before(async () => {
    d = await startTestDeployment('MARKUP_PERCENT=1\n');
  });
  after(() => d.close());

  const save = (settings: unknown) => d.call('POST', '/admin/api/save', { token: d.orchestratorToken, json: { settings } });

  it('writes known, valid keys atomically with mode 0600 and never echoes secrets', async () => {
    const res = await save({ TWILIO_AUTH_TOKEN: 'secret-value-123', EMAIL_DOMAIN: 'mail.example.com', LIMIT_ACTIONS_PER_DAY: 42, PUBLIC_BASE_URL: 'https://sb.example.com/base' });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes('secret-value-123'));
    assert.deepEqual(JSON.parse(text).saved.sort(), ['EMAIL_DOMAIN', 'LIMIT_ACTIONS_PER_DAY', 'PUBLIC_BASE_URL', 'TWILIO_AUTH_TOKEN']);
    const file = readFileSync(d.envFile, 'utf8');
    assert.match(file, /^MARKUP_PERCENT=1$/m);
    assert.match(file, /^TWILIO_AUTH_TOKEN=secret-value-123$/m);
    assert.match(file, /^LIMIT_ACTIONS_PER_DAY=42$/m);
    assert.equal(statSync(d.envFile).mode & 0o777, 0o600);
  });

  it('round-trips values with spaces, quotes and # through the env file', async () => {
    const tricky = `it's a "value" # not a comment`;
    assert.equal((await save({ RESEND_WEBHOOK_SECRET: 'whsec_abc', TARIFFS: 'sms=0.01' })).status, 200);
    assert.equal((await save({ ALLOWED_HOSTS: 'a.example.com, b.example.com' })).status, 200);
    const { parseEnv } = await import('node:util');
    const parsed = parseEnv(readFileSync(d.envFile, 'utf8')) as Record<string, string>;
    assert.equal(parsed.ALLOWED_HOSTS, 'a.example.com, b.example.com');
    // No setting accepts all of these characters, so the schema refuses it before it reaches the file.
    assert.equal((await save({ PUBLIC_BASE_URL: tricky })).status, 400);
  });

  it('refuses unknown keys with BAD_REQUEST naming each one and the nearest known name, writing nothing', async () => {
    const before = readFileSync(d.envFile, 'utf8');
    for (const [settings, error] of [
      [{ NOT_A_SETTING: 'x' }, 'Unknown setting NOT_A_SETTING in settings; the known settings are listed in docs/configuration.md.'],
      [{ node_env: 'test' }, 'Unknown setting node_env (did you mean NODE_ENV?) in settings; the known settings are listed in docs/configuration.md.'],
      [{ EMAIL_DOMAIN: 'ok.example.com', BOGUS: '1', MARKUP_PERCNT: 3 }, 'Unknown settings BOGUS, MARKUP_PERCNT (did you mean MARKUP_PERCENT?) in settings; the known settings are listed in docs/configuration.md.'],
    ] as const) {
      const res = await save(settings);
      const body = (await res.json()) as { code: string; error: string; details: { field: string; allowed: string[] }[] };
      assert.deepEqual([res.status, body.code, body.error], [400, 'BAD_REQUEST', error]);
      assert.ok(body.details.every((detail) => detail.allowed.includes('MARKUP_PERCENT')), 'each detail lists the known settings');
    }
    const extra = await d.call('POST', '/admin/api/save', { token: d.orchestratorToken, json: { settings: { MARKUP_PERCENT: 2 }, deploy: true } });
    assert.deepEqual([extra.status, ((await extra.json()) as { error: string }).error], [400, 'Unknown field deploy in body; allowed: settings.']);
    assert.equal(readFileSync(d.envFile, 'utf8'), before, 'the file is unchanged');
  });

  it('refuses line breaks, control characters and invalid values, writing nothing', async () => {
    const before = readFileSync(d.envFile, 'utf8');
    for (const settings of [
      { EMAIL_DOMAIN: 'a.example.com\nORCHESTRATOR_TOKEN=mine' },
      { TWILIO_AUTH_TOKEN: 'abc\rdef' },
      { TWILIO_AUTH_TOKEN: 'abc\u0000def' },
      { PORT: 'eighty' },
      { PORT: 70000 },
      { DEMO_MODE: 'maybe' },
      { TWILIO_ACCOUNT_SID: 'AC123' },
      {},
    ]) {
      const res = await save(settings);
      assert.equal(res.status, 400, JSON.stringify(settings));
      const body = await res.json() as any;
      assert.equal(body.code, 'VALIDATION_FAILED');
      assert.ok(!JSON.stringify(body).includes('ORCHESTRATOR_TOKEN=mine'));
    }
    assert.equal(readFileSync(d.envFile, 'utf8'), before, 'the file is unchanged');
  });

  it('refuses a deploy whose saved settings fail validation, before anything stops', async () => {
    // Passes the settings schema, but the Resend driver's own schema refuses the webhook secret.
    assert.equal((await save({ RESEND_API_KEY: 're_123', RESEND_WEBHOOK_SECRET: 'not a secret!' })).status, 200);
    const gateway = d.deployment.current;
    const res = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken });
    assert.equal(res.status, 400);
    const body = await res.json() as any;
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.match(body.error, /driver-resend/);
    assert.ok(!JSON.stringify(body).includes('re_123'));
    assert.equal(d.deployment.swapping, undefined, 'no swap started');
    assert.equal(d.deployment.current, gateway, 'the same gateway still serves');
    assert.equal((await d.call('GET', '/health')).status, 200);
    assert.equal((await save({ RESEND_API_KEY: '', RESEND_WEBHOOK_SECRET: '' })).status, 200);
  });

  it('deploys: 202, the port answers throughout (200 or 503 Retry-After), then serves the saved settings', async () => {
    assert.equal((await save({ MARKUP_PERCENT: 7, EMAIL_DOMAIN: 'deployed.example.com' })).status, 200);
    const first = d.deployment.current;
    const res = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken });
    assert.equal(res.status, 202);
    assert.equal((await res.json() as any).ok, true);
    const statuses = new Set<number>();
    let retryAfterSeen = true;
    while (d.deployment.swapping) {
      try {
        const r = await d.call('GET', '/health');
        statuses.add(r.status);
        if (r.status === 503 && !r.headers.get('retry-after')) retryAfterSeen = false;
        await r.arrayBuffer();
      } catch (err) {
        assert.fail(`the port refused a connection during the swap: ${(err as Error).message}`);
      }
    }
    assert.ok(retryAfterSeen, 'every 503 carries Retry-After');
    for (const s of statuses) assert.ok(s === 200 || s === 503, `status ${s}`);
    assert.notEqual(d.deployment.current, first, 'a new gateway serves');
    assert.equal(d.deployment.current.port, first.port);
    assert.equal(d.deployment.current.runtime.settings.EMAIL_DOMAIN, 'deployed.example.com');
    const status = await (await d.call('GET', '/admin/api/status', { token: d.orchestratorToken })).json() as any;
    assert.equal(status.settings.MARKUP_PERCENT, 7);
  });

  it('MCP clients reconnect after a deploy, over SSE and Streamable HTTP; the voice socket answers', async () => {
    const team = await d.deployment.current.runtime.inspect.tokens.teamToken();
    const before = await connectMcp(d.url, 'streamable', team);
    const res = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken });
    assert.equal(res.status, 202);
    await new Promise((r) => setTimeout(r, 20));
    await d.deployment.swapping;
    await before.close().catch(() => undefined);
    for (const kind of ['sse', 'streamable'] as const) {
      const client = await connectMcp(d.url, kind, team);
      const tools = await client.client.listTools();
      assert.ok(tools.tools.length > 0, kind);
      await client.close();
    }
    // The new generation's voice WebSocket route answers (an unsigned upgrade is refused, not dropped).
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${d.url}/webhooks/nobody/voice-ws`, {
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
      });
      req.on('response', (r) => {
        r.resume();
        resolve(r.statusCode!);
      });
      req.on('upgrade', (_r, socket) => {
        socket.destroy();
        resolve(101);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 403);
  });

  it('a second deploy while one is under way is a conflict', async () => {
    const one = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken });
    assert.equal(one.status, 202);
    const two = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken }).catch(() => undefined);
    if (two) assert.ok(two.status === 409 || two.status === 503, `status ${two.status}`);
    await d.deployment.swapping;
  });
});

describe('admin API: a deploy under load', () => {
  let d: TestDeployment;
  before(async () => {
    d = await startTestDeployment();
  });
  after(() => d.close());

  it('loses nothing it acknowledged: every 200 send is in the store after the swap', async () => {
    const team = await d.deployment.current.runtime.inspect.tokens.teamToken();
    const prov = await d.call('POST', '/api/v1/provision', { token: team, json: { agentId: 'load-1', displayName: 'Load', channels: ['sms'] } });
    assert.equal(prov.status, 201);
    const { securityToken } = await prov.json() as any;
    // The load is about the swap, not the agent's limits: a quiet machine sends past 120 a minute here.
    const unlimited = { actionsPerMinute: null, actionsPerHour: null, actionsPerDay: null, spendPerDay: null, spendPerMonth: null };
    const limits = await d.call('PUT', '/admin/api/agents/load-1/limits', { token: d.orchestratorToken, json: { limits: unlimited } });
    assert.equal(limits.status, 200);
    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    let sending = true;
    const sender = async (worker: number) => {
      for (let i = 0; sending; i++) {
        const res = await d
          .call('POST', '/api/v1/send-message', { token: securityToken, json: { channel: 'sms', to: '+14155550199', body: `w${worker} #${i}` } })
          .catch(() => undefined);
        assert.ok(res, 'no connection was refused');
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const body = await res.json() as any;
        if (res.status === 200) acknowledged.push(body.externalId);
        else assert.equal(res.status, 503, JSON.stringify(body));
        if (res.status === 503) await new Promise((r) => setTimeout(r, 20));
      }
    };
    const workers = Array.from({ length: 4 }, (_, i) => sender(i));
    // Sends acknowledged before the deploy and after the swap, however fast the machine sends: a count
    // waited for, not a time window of load.
    const acknowledgedAtLeast = async (n: number, when: string) => {
      await eventually(() => acknowledged.length >= n, {
        timeoutMs: 60_000,
        message: () => `${n} sends acknowledged ${when} (${acknowledged.length} were): ${JSON.stringify([...statuses])}`,
      });
    };
    await acknowledgedAtLeast(5, 'before the deploy');
    const res = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken });
    assert.equal(res.status, 202);
    await new Promise((r) => setTimeout(r, 50));
    await d.deployment.swapping;
    await acknowledgedAtLeast(acknowledged.length + 5, 'after the swap');
    sending = false;
    await Promise.all(workers);
    const { stored } = d.deployment.current.runtime.inspect;
    for (const id of acknowledged) {
      const row = await stored.row<{ n: number }>('SELECT COUNT(*) AS n FROM messages WHERE external_id = ?', [id]);
      assert.equal(Number(row?.n), 1, `acknowledged message ${id} is stored`);
    }
  });
});

describe('admin API: weak and dangerous settings are refused', () => {
  let d: TestDeployment;
  before(async () => {
    d = await startTestDeployment('MARKUP_PERCENT=1\n');
  });
  after(() => d.close());

  const save = (settings: unknown) => d.call('POST', '/admin/api/save', { token: d.orchestratorToken, json: { settings } });
  const refused = async (settings: Record<string, unknown>, rule: RegExp) => {
    const res = await save(settings);
    assert.equal(res.status, 400, JSON.stringify(settings));
    const body = await res.json() as any;
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.match(body.error, rule);
  };

  it('refuses an ORCHESTRATOR_TOKEN without a token\u2019s worth of entropy, naming the rule; a generated-style one is saved', async () => {
    const before = readFileSync(d.envFile, 'utf8');
    await refused({ ORCHESTRATOR_TOKEN: 'a' }, /ORCHESTRATOR_TOKEN is 1 character long; a token needs at least 32/);
    await refused({ ORCHESTRATOR_TOKEN: 'a'.repeat(40) }, /ORCHESTRATOR_TOKEN looks predictable.*128 random bits/);
    await refused({ ORCHESTRATOR_TOKEN: 'password-password-password-password' }, /ORCHESTRATOR_TOKEN looks predictable/);
    await refused({ ORCHESTRATOR_TOKEN: '1234567890'.repeat(4) }, /ORCHESTRATOR_TOKEN looks predictable/);
    assert.equal(readFileSync(d.envFile, 'utf8'), before, 'nothing was written');
    const { randomBytes } = await import('node:crypto');
    for (const token of [randomBytes(16).toString('hex'), `sb_orch_${randomBytes(32).toString('base64url')}`]) {
      assert.equal((await save({ ORCHESTRATOR_TOKEN: token })).status, 200, token);
    }
    assert.equal((await save({ ORCHESTRATOR_TOKEN: '' })).status, 200);
  });

  it('bounds every numeric setting: BODY_LIMIT_BYTES=1e15 and AUTH_LOCKOUT_ATTEMPTS=1e12 are refused', async () => {
    await refused({ BODY_LIMIT_BYTES: 1e15 }, /BODY_LIMIT_BYTES must be <= 67108864/);
    await refused({ BODY_LIMIT_BYTES: '1000000000000000' }, /BODY_LIMIT_BYTES must be <= /);
    await refused({ AUTH_LOCKOUT_ATTEMPTS: 1e12 }, /AUTH_LOCKOUT_ATTEMPTS must be <= 1000/);
    const { SettingsSchema } = await import('@switchboard/runtime');
    for (const [key, schema] of Object.entries(SettingsSchema.properties as Record<string, { type?: string; maximum?: number }>)) {
      if (schema.type === 'integer' || schema.type === 'number') assert.equal(typeof schema.maximum, 'number', `${key} has a maximum`);
    }
    assert.equal((await save({ BODY_LIMIT_BYTES: 2_097_152 })).status, 200);
    assert.equal((await save({ BODY_LIMIT_BYTES: '' })).status, 200);
  });

  it('refuses a change of SECRET_KEY, which would leave the sealed secrets unreadable; the key in force may be written down', async () => {
    const current = readFileSync(join(d.dir, 'data', 'secret.key'), 'utf8').trim();
    const { randomBytes } = await import('node:crypto');
    await refused({ SECRET_KEY: randomBytes(32).toString('base64') }, /SECRET_KEY cannot be changed through the admin API.*Changing SECRET_KEY/);
    await refused({ SECRET_KEY: 'short' }, /SECRET_KEY/);
    assert.doesNotMatch(readFileSync(d.envFile, 'utf8'), /SECRET_KEY/);
    assert.equal((await save({ SECRET_KEY: current })).status, 200, 'the same key, written down');
    assert.equal((await save({ SECRET_KEY: '' })).status, 200, 'cleared: secret.key under DATA_DIR, the same key');
    assert.equal((await d.call('GET', '/admin/api/my-token', { token: d.orchestratorToken })).status, 200);
  });

  it('refuses at start-up what the admin API refuses', async () => {
    const { loadSettings } = await import('@switchboard/runtime');
    for (const [overrides, rule] of [
      [{ ORCHESTRATOR_TOKEN: 'a' }, /ORCHESTRATOR_TOKEN is 1 character long/],
      [{ BODY_LIMIT_BYTES: 1e15 }, /BODY_LIMIT_BYTES must be <= 67108864/],
      [{ AUTH_LOCKOUT_ATTEMPTS: 1e12 }, /AUTH_LOCKOUT_ATTEMPTS must be <= 1000/],
      [{ SECRET_KEY: 'not-a-key' }, /SECRET_KEY/],
    ] as const) {
      assert.throws(() => loadSettings({ env: {}, overrides }), (err: any) => err.code === 'VALIDATION_FAILED' && rule.test(err.message), JSON.stringify(overrides));
    }
  });

  it('a start (here a deploy) with a SECRET_KEY that does not open the store fails with a message, not a 500 later', async () => {
    const { randomBytes } = await import('node:crypto');
    const before = readFileSync(d.envFile, 'utf8');
    // Edited by hand, past the admin API's check.
    writeFileSync(d.envFile, `${before}SECRET_KEY=${randomBytes(32).toString('base64')}\n`);
    const res = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken });
    assert.equal(res.status, 202);
    await new Promise((r) => setTimeout(r, 20));
    await d.deployment.swapping;
    const last = d.deployment.lastDeploy!;
    assert.equal(last.outcome, 'failed');
    assert.match(last.error!.message, /SECRET_KEY does not open the secrets this store holds/);
    assert.equal(last.envFileRestored, true);
    assert.equal(readFileSync(d.envFile, 'utf8'), 'MARKUP_PERCENT=1\n', 'the env file is put back as the serving settings were loaded');
    assert.equal((await d.call('GET', '/admin/api/my-token', { token: d.orchestratorToken })).status, 200);
  });
});

describe('admin API: demo mode across a deploy', () => {
  let d: TestDeployment;
  before(async () => {
    d = await startTestDeployment();
  });
  after(() => d.close());

  it('status shows the simulator; it keeps its port and credentials across a deploy; its credentials are offered', async () => {
    const status = async () => (await (await d.call('GET', '/admin/api/status', { token: d.orchestratorToken })).json()) as any;
    const first = await status();
    assert.equal(first.demoMode, true);
    assert.equal(first.simulator.url, d.deployment.current.simulator!.url);
    assert.equal(first.lastDeploy, null);
    const demo = (await (await d.call('GET', '/admin/api/demo-credentials', { token: d.orchestratorToken })).json()) as any;
    assert.equal(demo.url, first.simulator.url);
    assert.equal(demo.twilio.accountSid, d.deployment.current.simulator!.credentials.twilio.accountSid);
    const res = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken });
    assert.equal(res.status, 202);
    const { deploy } = (await res.json()) as any;
    await new Promise((r) => setTimeout(r, 20));
    await d.deployment.swapping;
    const after = await status();
    assert.equal(after.lastDeploy.startedAt, deploy.startedAt);
    assert.equal(after.lastDeploy.outcome, 'deployed');
    assert.equal(after.simulator.url, first.simulator.url, 'the simulator kept its port');
    const again = (await (await d.call('GET', '/admin/api/demo-credentials', { token: d.orchestratorToken })).json()) as any;
    assert.deepEqual(again, demo, 'and its credentials');
    const check = await d.call('POST', '/admin/api/test/twilio', { token: d.orchestratorToken, json: { accountSid: demo.twilio.accountSid, authToken: demo.twilio.authToken } });
    assert.equal(((await check.json()) as any).ok, true);
  });

  it('saving is refused while a deploy is under way', async () => {
    const res = await d.call('POST', '/admin/api/deploy', { token: d.orchestratorToken });
    assert.equal(res.status, 202);
    const save = await d.call('POST', '/admin/api/save', { token: d.orchestratorToken, json: { settings: { MARKUP_PERCENT: 3 } } });
    assert.ok(save.status === 409 || save.status === 503, `status ${save.status}`);
    await d.deployment.swapping;
  });
});
