import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('provisioning pools', () => {
  let t: TestGateway;
  before(async () => {
    // Not in demo mode: the pools hold exactly what these settings give them.
    t = await startTestGateway({
      DEMO_MODE: 'false',
      POOL_PHONE_NUMBERS: Array.from({ length: 20 }, (_, i) => `+1415555${String(1000 + i)}`).join(','),
      POOL_WHATSAPP_SENDERS: '+14155552000',
      POOL_LINE_CHANNELS: '',
      EMAIL_DOMAIN: 'agents.example.com',
    });
  });
  after(() => t.close());

  const provision = (agentId: string, channels: string[], extra: object = {}) =>
    t.call('POST', '/api/v1/provision', { token: t.teamToken, json: { agentId, displayName: agentId, channels, ...extra } });

  it('is atomic: when one requested pool is dry nothing is taken', async () => {
    const before = await t.gateway.runtime.inspect.stored.poolCounts();
    const res = await provision('atomic-1', ['sms', 'whatsapp', 'line']);
    assert.equal(res.status, 409);
    const body = (await res.json()) as { code: string; error: string };
    assert.equal(body.code, 'POOL_EXHAUSTED');
    assert.match(body.error, /line/);
    assert.deepEqual(await t.gateway.runtime.inspect.stored.poolCounts(), before);
    assert.equal(await t.gateway.runtime.inspect.stored.agent('atomic-1'), undefined);
    assert.equal((await t.gateway.runtime.inspect.stored.rows("SELECT * FROM tokens WHERE agent_id = 'atomic-1'")).length, 0);
  });

  it('runs dry mid-request: the second whatsapp agent gets nothing, not even a phone', async () => {
    assert.equal((await provision('wa-1', ['sms', 'whatsapp'])).status, 201);
    const freeBefore = (await t.gateway.runtime.inspect.stored.poolCounts()).phone.free;
    const res = await provision('wa-2', ['sms', 'whatsapp']);
    assert.equal(res.status, 409);
    assert.equal((await t.gateway.runtime.inspect.stored.poolCounts()).phone.free, freeBefore);
  });

  it('never hands one number to two agents under concurrent provisioning', async () => {
    const free = (await t.gateway.runtime.inspect.stored.poolCounts()).phone.free;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => provision(`race-${i}`, ['sms', 'voice'])));
    const ok = results.filter((r) => r.status === 201);
    const bodies = (await Promise.all(ok.map((r) => r.json()))) as { channels: { sms: { address: string } } }[];
    const numbers = bodies.map((b) => b.channels.sms.address);
    assert.equal(ok.length, free, 'every free number is handed out');
    assert.equal(new Set(numbers).size, numbers.length, 'no number is handed out twice');
    for (const r of results.filter((r) => r.status !== 201)) {
      assert.equal(r.status, 409);
      assert.equal(((await r.json()) as { code: string }).code, 'POOL_EXHAUSTED');
    }
    const held = await t.gateway.runtime.inspect.stored.rows<{ n: number }>(
      "SELECT COUNT(DISTINCT agent_id) AS n FROM pool_entries WHERE pool = 'phone' AND agent_id LIKE 'race-%'",
    );
    assert.equal(held[0]!.n, free);
  });

  it('makes email addresses under the configured domain and refuses another domain', async () => {
    const res = await provision('Mail.Bot', ['email']);
    assert.equal(res.status, 201);
    assert.equal(((await res.json()) as { channels: { email: { address: string } } }).channels.email.address, 'mail.bot@agents.example.com');
    const other = await provision('mail-2', ['email'], { emailDomain: 'elsewhere.com' });
    assert.equal(other.status, 400);
  });

  it('picks numbers by country', async () => {
    await t.call('POST', '/admin/api/pools/phone', { token: t.orchestratorToken, json: { addresses: ['+442071838750'] } });
    const res = await provision('uk-1', ['sms'], { country: 'GB' });
    assert.equal(res.status, 201);
    assert.equal(((await res.json()) as { channels: { sms: { address: string } } }).channels.sms.address, '+442071838750');
    assert.equal((await provision('uk-2', ['sms'], { country: 'GB' })).status, 409);
  });
});

describe('demo mode LINE addresses', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway();
  });
  after(() => t.close());

  it('the LINE address an agent is given is the bot recipients see its pushes come from, and its webhooks are signed by that bot', async () => {
    const user = 'U' + 'ab'.repeat(16);
    for (const agentId of ['line-a', 'line-b']) {
      const res = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json: { agentId, displayName: agentId, channels: ['line'] } });
      assert.equal(res.status, 201);
      const agent = (await res.json()) as { securityToken: string; channels: { line: { address: string } } };
      const address = agent.channels.line.address;
      const sent = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'line', to: user, body: `from ${agentId}` } });
      assert.equal(sent.status, 200, await sent.clone().text());
      assert.equal(((await sent.json()) as { from: string }).from, address);
      const pushed = t.sim.messages({ provider: 'line', to: user }).find((m) => m.body === `from ${agentId}`);
      assert.equal(pushed?.from, address, `${agentId}: the simulator shows the push from the agent's own address`);
      const inbound = await t.sim.inbound.line({ agentId, userId: user, text: 'hi bot', destination: address });
      assert.equal(inbound.status, 200, inbound.body);
    }
  });
});
