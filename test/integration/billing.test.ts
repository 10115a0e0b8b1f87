import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const US = '+14155550123';
const GB = '+442071838750';
const LINE_USER = 'U' + 'ef'.repeat(16);

interface Usage {
  agentId: string | null;
  totals: { messages: number; cost: number };
  byChannel: Record<string, { messages: number; cost: number }>;
  limits: Record<string, number | null>;
  remaining: Record<string, number | null>;
  agents?: { agentId: string }[];
}

describe('usage, limits and billing', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway({
      TARIFFS: 'sms=0.01,sms:GB=0.05,whatsapp=0.005,email=0.001,line=0',
      MARKUP_PERCENT: 20,
      LIMIT_ACTIONS_PER_MINUTE: 1000,
    });
  });
  after(() => t.close());

  const send = (token: string, json: object) => t.call('POST', '/api/v1/send-message', { token, json });
  const usageRows = (agentId: string) => t.gateway.runtime.inspect.stored.usage(agentId);

  it('writes a usage row for every channel with the tariff for the channel, segment count and destination country', async () => {
    const a = await provisionAgent(t, 'meter', ['sms', 'whatsapp', 'email', 'line']);
    t.sim.faults.clear();
    // The WhatsApp send is free-form: the person wrote first, so its 24-hour window is open.
    assert.equal((await t.sim.inbound.whatsapp({ agentId: 'meter', from: US, to: a.channels.whatsapp!.address, body: 'hi' })).status, 200);
    const bodies = [
      { channel: 'sms', to: US, body: 'short' },
      { channel: 'sms', to: US, body: 'x'.repeat(200) },
      { channel: 'sms', to: GB, body: 'uk' },
      { channel: 'whatsapp', to: US, body: 'wa' },
      { channel: 'email', to: 'a@example.com', subject: 's', body: 'e' },
      { channel: 'line', to: LINE_USER, body: 'l' },
    ];
    const answers: { externalId: string; cost: number }[] = [];
    for (const b of bodies) {
      const res = await send(a.securityToken, b);
      assert.equal(res.status, 200);
      answers.push((await res.json()) as { externalId: string; cost: number });
    }
    const rows = await usageRows('meter');
    const costOf = (i: number) => rows.find((r) => r.externalId === answers[i]!.externalId)!;
    assert.deepEqual([costOf(0).quantity, costOf(0).tariffCost], [1, 0.01]);
    assert.deepEqual([costOf(1).quantity, costOf(1).tariffCost], [2, 0.02], '200 GSM-7 characters are two segments');
    assert.equal(costOf(2).tariffCost, 0.05, 'the GB tariff applies to a GB number');
    assert.equal(costOf(3).tariffCost, 0.005);
    assert.equal(costOf(4).tariffCost, 0.001);
    assert.equal(costOf(5).tariffCost, 0);
    assert.equal(answers[1]!.cost, 0.02);
  });

  it('the provider price from a status callback replaces the tariff', async () => {
    const rows = await eventually(
      async () => {
        const rows = await usageRows('meter');
        return rows.filter((r) => r.channel === 'sms' && r.providerCost !== null).length >= 3 && rows;
      },
      { message: 'three SMS usage rows priced by the provider' },
    );
    const priced = rows.filter((r) => r.channel === 'sms' && r.providerCost !== null);
    assert.equal(priced.length, 3);
    assert.ok(priced.every((r) => r.providerCost! > 0 && r.providerCost !== r.tariffCost));
    const whatsapp = rows.find((r) => r.channel === 'email')!;
    assert.equal(whatsapp.providerCost, null, 'Resend reports no price: the tariff stands');
  });

  it('usage and billing totals match the rows, with the markup applied', async () => {
    const rows = await usageRows('meter');
    const expected = Math.round(rows.reduce((s, r) => s + (r.providerCost ?? r.tariffCost), 0) * 10_000) / 10_000;
    const usage = (await (await t.call('GET', '/api/v1/usage?agentId=meter&period=today', { token: t.teamToken })).json()) as Usage;
    assert.equal(usage.totals.messages, rows.length);
    assert.equal(usage.totals.cost, expected);
    assert.equal(usage.byChannel.sms?.messages, 3);
    const billing = (await (await t.call('GET', '/api/v1/billing?agentId=meter&period=month', { token: t.teamToken })).json()) as {
      providerCost: number;
      markupPercent: number;
      billedCost: number;
      byChannel: Record<string, { count: number }>;
    };
    assert.equal(billing.providerCost, expected);
    assert.equal(billing.markupPercent, 20);
    assert.ok(Math.abs(billing.billedCost - expected * 1.2) < 0.0005);
    assert.equal(billing.byChannel.sms?.count, 3);
    for (const period of ['week', 'all']) {
      const p = (await (await t.call('GET', `/api/v1/usage?agentId=meter&period=${period}`, { token: t.teamToken })).json()) as Usage;
      assert.equal(p.totals.cost, expected, period);
    }
  });

  it('an agent markup overrides the global one; the admin can change the global one', async () => {
    const set = await t.call('PUT', '/admin/api/agents/meter/limits', { token: t.orchestratorToken, json: { limits: {}, markupPercent: 50 } });
    assert.equal(set.status, 200);
    const bill = (await (await t.call('GET', '/api/v1/billing?agentId=meter', { token: t.teamToken })).json()) as { markupPercent: number; providerCost: number; billedCost: number };
    assert.equal(bill.markupPercent, 50);
    assert.ok(Math.abs(bill.billedCost - bill.providerCost * 1.5) < 0.0005);
    assert.equal((await t.call('PUT', '/admin/api/markup', { token: t.orchestratorToken, json: { markupPercent: 10 } })).status, 200);
    assert.deepEqual(await (await t.call('GET', '/admin/api/markup', { token: t.orchestratorToken })).json(), { markupPercent: 10 });
  });

  it('without agentId a team token gets all agents summed and listed; a client token only its own', async () => {
    const other = await provisionAgent(t, 'meter-2', ['sms']);
    assert.equal((await send(other.securityToken, { channel: 'sms', to: US, body: 'hi' })).status, 200);
    const all = (await (await t.call('GET', '/api/v1/usage?period=today', { token: t.teamToken })).json()) as Usage;
    assert.equal(all.agentId, null);
    assert.deepEqual(all.agents?.map((a) => a.agentId).sort(), ['meter', 'meter-2']);
    const own = (await (await t.call('GET', '/api/v1/usage', { token: other.securityToken })).json()) as Usage;
    assert.equal(own.agentId, 'meter-2');
    assert.equal(own.totals.messages, 1);
    assert.equal((await t.call('GET', '/api/v1/usage?agentId=meter', { token: other.securityToken })).status, 403);
    assert.equal((await t.call('GET', '/api/v1/billing?agentId=meter', { token: other.securityToken })).status, 403);
  });

  it('a per-minute limit trips at exactly its value under 50 concurrent sends, with Retry-After and the limit named', async () => {
    const a = await provisionAgent(t, 'burst', ['sms']);
    await t.call('PUT', '/admin/api/agents/burst/limits', { token: t.orchestratorToken, json: { limits: { actionsPerMinute: 10 } } });
    // Start well inside a UTC minute so the burst cannot straddle two windows.
    const second = new Date().getUTCSeconds();
    if (second >= 50) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => send(a.securityToken, { channel: 'sms', to: US, body: `n${i}` })));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    assert.equal(ok.length, 10);
    assert.equal(limited.length, 40);
    const body = (await limited[0]!.json()) as { code: string; error: string; details: { limit: string; resetsAt: string }[] };
    assert.equal(body.code, 'RATE_LIMITED');
    assert.equal(body.details[0]!.limit, 'actionsPerMinute');
    assert.match(body.error, /actionsPerMinute limit of 10/);
    const retryAfter = Number(limited[0]!.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60);
    const usage = (await (await t.call('GET', '/api/v1/usage?agentId=burst&period=today', { token: t.teamToken })).json()) as Usage;
    assert.equal(usage.totals.messages, ok.length, 'refused sends leave no usage');
    assert.equal(usage.limits.actionsPerMinute, 10);
    const metrics = await (await t.call('GET', '/metrics')).text();
    assert.match(metrics, /switchboard_limit_rejections_total\{limit="actionsPerMinute"\} \d+/);
  });

  it('a spend limit stops sends before the provider is called', async () => {
    const a = await provisionAgent(t, 'spender', ['sms']);
    await t.call('PUT', '/admin/api/agents/spender/limits', { token: t.orchestratorToken, json: { limits: { spendPerDay: 0.05 } } });
    const before = t.sim.messages({ provider: 'twilio' }).length;
    const results = await Promise.all(Array.from({ length: 20 }, () => send(a.securityToken, { channel: 'sms', to: US, body: 'cost' })));
    assert.equal(results.filter((r) => r.status === 200).length, 5, 'five sends at $0.01 fit $0.05');
    assert.equal(t.sim.messages({ provider: 'twilio' }).length - before, 5, 'the provider saw only the admitted sends');
    const limited = (await results.find((r) => r.status === 429)!.json()) as { details: { limit: string }[] };
    assert.equal(limited.details[0]!.limit, 'spendPerDay');
  });

  it('a failed send gives its usage back', async () => {
    const a = await provisionAgent(t, 'refunded', ['sms']);
    await t.call('PUT', '/admin/api/agents/refunded/limits', { token: t.orchestratorToken, json: { limits: { actionsPerMinute: 2 } } });
    t.sim.faults.add({ provider: 'twilio', status: 400, times: 1 });
    assert.equal((await send(a.securityToken, { channel: 'sms', to: US, body: 'refused' })).status, 502);
    assert.equal((await send(a.securityToken, { channel: 'sms', to: US, body: 'one' })).status, 200);
    assert.equal((await send(a.securityToken, { channel: 'sms', to: US, body: 'two' })).status, 200);
    assert.equal((await usageRows('refunded')).length, 2);
  });

  it('limits reset when their window passes (ledger unit)', async () => {
    const { UsageLedger } = await import('@switchboard/runtime/internal');
    const limits = { actionsPerMinute: 2, actionsPerHour: null, actionsPerDay: null, spendPerDay: null, spendPerMonth: null, callsPerDayToSameNumber: null };
    const empty = { minute: { actions: 0, spend: 0 }, hour: { actions: 0, spend: 0 }, day: { actions: 0, spend: 0 }, month: { actions: 0, spend: 0 } };
    const start = Date.UTC(2026, 0, 1, 12, 0, 30);
    const ledger = new UsageLedger(limits, empty, start);
    ledger.admit(0, start);
    ledger.admit(0, start + 1000);
    assert.throws(() => ledger.admit(0, start + 2000), (err: { retryAfter: number }) => err.retryAfter === 28);
    ledger.admit(0, start + 30_000);
  });
});

describe('limits survive a restart', () => {
  it('counts already used in this window still count after the process restarts', async () => {
    let t = await startTestGateway({ LIMIT_ACTIONS_PER_DAY: 3, LIMIT_ACTIONS_PER_MINUTE: 0, LIMIT_ACTIONS_PER_HOUR: 0 });
    const dataDir = t.dataDir;
    const a = await provisionAgent(t, 'durable-limits', ['sms']);
    for (let i = 0; i < 3; i++) assert.equal((await t.call('POST', '/api/v1/send-message', { token: a.securityToken, json: { channel: 'sms', to: US, body: `#${i}` } })).status, 200);
    await t.close({ keepData: true });
    t = await startTestGateway({ LIMIT_ACTIONS_PER_DAY: 3, LIMIT_ACTIONS_PER_MINUTE: 0, LIMIT_ACTIONS_PER_HOUR: 0 }, dataDir);
    try {
      const res = await t.call('POST', '/api/v1/send-message', { token: a.securityToken, json: { channel: 'sms', to: US, body: 'over' } });
      assert.equal(res.status, 429);
      assert.equal(((await res.json()) as { details: { limit: string }[] }).details[0]!.limit, 'actionsPerDay');
    } finally {
      await t.close();
    }
  });
});
