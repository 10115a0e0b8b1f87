// The operator's view of a channel's providers (GET /admin/api/providers): routing order, attempts by
// outcome, circuit state and prefix routes, counted from the runtime events the gateway's metrics
// follow, so the same embedded and clustered (scripts/test.mjs).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { TWO_SMS_PROVIDERS, twoSmsProviders } from '../helpers/sms-providers.js';

interface Board {
  since: string;
  channels: {
    channel: string;
    providers: { provider: string; circuit: string; lastSuccessAt: string | null; lastFailureAt: string | null; recentErrorRate: number | null; attempts: Record<'accepted' | 'refused' | 'ambiguous', number> }[];
    routes: { prefix: string; providers: string[] }[];
  }[];
}

describe('the admin providers board', { timeout: 120_000 }, () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;

  before(async () => {
    t = await startTestGateway(
      { ...TWO_SMS_PROVIDERS, POOL_PHONE_NUMBERS: ['+12025550100', 'telnyx:+15555550102'].join(','), PROVIDER_CIRCUIT_HALF_OPEN_MS: 60_000 },
      undefined,
      { drivers: (sim) => twoSmsProviders(sim) },
    );
    agent = await provisionAgent(t, 'board', ['sms']);
  });
  after(() => t?.close());

  const board = async () => {
    const res = await t.call('GET', '/admin/api/providers', { token: t.orchestratorToken });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return (await res.json()) as Board;
  };

  it('lists the SMS providers in routing order with the prefix routes, before any send', async () => {
    const b = await board();
    const sms = b.channels.find((c) => c.channel === 'sms')!;
    assert.deepEqual(sms.providers.map((p) => p.provider), ['twilio', 'telnyx']);
    assert.deepEqual(sms.routes, [{ prefix: '+44', providers: ['telnyx', 'twilio'] }]);
    assert.ok(!b.channels.some((c) => c.channel === 'voice'), 'voice is not a message channel');
    assert.ok(b.channels.some((c) => c.channel === 'email'), "the simulator's email provider is listed");
    for (const p of sms.providers) {
      assert.deepEqual([p.circuit, p.attempts, p.recentErrorRate, p.lastSuccessAt, p.lastFailureAt], ['closed', { accepted: 0, refused: 0, ambiguous: 0 }, null, null, null]);
    }
  });

  it('after Twilio answers 503: Twilio shows refused attempts and an open circuit, Telnyx the accepted ones', async () => {
    t.sim.faults.add({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', status: 503 });
    try {
      for (let i = 0; i < 4; i++) {
        const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: '+14155550123', body: `board check ${i}` } });
        const sent = (await res.json()) as { provider?: string };
        assert.equal(res.status, 200, JSON.stringify(sent));
        assert.equal(sent.provider, 'telnyx');
      }
    } finally {
      t.sim.faults.clear();
    }
    // Forwarded from the node that sent, in a cluster: the board catches up shortly.
    const sms = await eventually(
      async () => {
        const found = (await board()).channels.find((c) => c.channel === 'sms')!;
        const [twilio, telnyx] = found.providers;
        return twilio!.attempts.refused >= 3 && telnyx!.attempts.accepted === 4 && twilio!.circuit === 'open' ? found : undefined;
      },
      { timeoutMs: 15_000, message: 'the failovers on the board' },
    );
    const [twilio, telnyx] = sms.providers;
    assert.deepEqual(sms.providers.map((p) => p.provider), ['twilio', 'telnyx']);
    assert.equal(twilio!.attempts.accepted, 0);
    assert.equal(twilio!.recentErrorRate, 1);
    assert.equal(twilio!.lastSuccessAt, null);
    assert.ok(twilio!.lastFailureAt && Date.parse(twilio!.lastFailureAt) >= Date.parse((await board()).since));
    assert.deepEqual(telnyx!.attempts, { accepted: 4, refused: 0, ambiguous: 0 });
    assert.equal(telnyx!.recentErrorRate, 0);
    assert.equal(telnyx!.circuit, 'closed');
    assert.ok(telnyx!.lastSuccessAt);
  });

  it('tests a loaded provider with its driver; an unknown provider is 404', async () => {
    const ok = await t.call('POST', '/admin/api/providers/telnyx/test', { token: t.orchestratorToken, json: {} });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.equal(((await ok.json()) as { ok: boolean }).ok, true);
    const unknown = await t.call('POST', '/admin/api/providers/nobody/test', { token: t.orchestratorToken, json: {} });
    assert.equal(unknown.status, 404);
  });

  it('refuses anyone but the operator', async () => {
    assert.equal((await t.call('GET', '/admin/api/providers')).status, 401);
    for (const token of [agent.securityToken, t.teamToken]) {
      const res = await t.call('GET', '/admin/api/providers', { token });
      assert.ok([401, 403].includes(res.status), `a non-operator token gets ${res.status}`);
    }
    const test = await t.call('POST', '/admin/api/providers/twilio/test', { token: agent.securityToken, json: {} });
    assert.ok([401, 403].includes(test.status));
  });
});
