// Two SMS providers for one channel (SMS_DRIVER=twilio,telnyx): sends go to Twilio and fail over to
// Telnyx only when Twilio provably did not take them (its port refusing connections, then a 503 before
// accepting); a send whose answer Twilio lost after accepting it is settled at Twilio and never sent
// twice. Counted at both simulated providers, embedded and clustered (scripts/test.mjs).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { TWO_SMS_PROVIDERS, twoSmsProviders } from '../helpers/sms-providers.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const OWN = ['+12025550100', '+12025550101'];
/** One sender at Telnyx (a number on the simulated Telnyx account): the first agent gets it, the second holds none there. */
const AT_TELNYX = '+15555550102';

describe('routing and failover between two SMS providers', { timeout: 180_000 }, () => {
  let t: TestGateway;
  let twilioPort: TcpProxy;
  let simPort = 0;
  let routed: Awaited<ReturnType<typeof provisionAgent>>;
  let solo: Awaited<ReturnType<typeof provisionAgent>>;
  let n = 0;

  before(async () => {
    // Twilio is reached through a proxy the test can close (connections refused) and open again.
    twilioPort = await startTcpProxy(() => simPort);
    t = await startTestGateway(
      { ...TWO_SMS_PROVIDERS, POOL_PHONE_NUMBERS: [...OWN, `telnyx:${AT_TELNYX}`].join(','), PROVIDER_CIRCUIT_HALF_OPEN_MS: 300, SEND_TIMEOUT_MS: 1500 },
      undefined,
      {
        drivers: (sim) => {
          simPort = Number(new URL(sim.url).port);
          return twoSmsProviders(sim, sim.baseUrls.twilio.replace(`:${simPort}/`, `:${twilioPort.port}/`));
        },
      },
    );
    routed = await provisionAgent(t, 'routed', ['sms']);
    solo = await provisionAgent(t, 'solo', ['sms']);
  });
  after(async () => {
    await t?.close();
    await twilioPort?.close();
  });

  /** Sends one SMS from an agent with a body of its own; answers the body with the response. */
  const sendOne = async (token: string, to: string) => {
    const body = `failover check ${++n}`;
    const res = await t.call('POST', '/api/v1/send-message', { token, json: { channel: 'sms', to, body } });
    return { body, status: res.status, json: (await res.json()) as Record<string, any> };
  };
  /** Sends `count` SMS at once from an agent, each with its own body. */
  const sendMany = (count: number, token = routed.securityToken, to = '+14155550123') => Promise.all(Array.from({ length: count }, () => sendOne(token, to)));
  /** How many times each body reached each simulated provider. */
  const reached = (bodies: readonly string[]) => {
    const count = (provider: 'twilio' | 'telnyx') => bodies.map((b) => t.sim.messages({ provider }).filter((m) => m.body === b).length);
    return { twilio: count('twilio'), telnyx: count('telnyx') };
  };
  const circuitClosed = () =>
    eventually(
      async () => {
        const answer = await sendMany(1);
        return answer[0]!.json.provider === 'twilio' ? true : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, message: "Twilio's circuit to close again once it answers" },
    );

  it("provisioning gives an agent a sender at each provider whose pool part has one", async () => {
    assert.equal(routed.channels.sms!.address, OWN[0]);
    assert.equal(solo.channels.sms!.address, OWN[1]);
    const [sent] = await sendMany(1);
    assert.equal(sent!.status, 200, JSON.stringify(sent!.json));
    assert.deepEqual([sent!.json.provider, sent!.json.from], ['twilio', OWN[0]]);
  });

  it('Twilio refusing connections: every send reaches Telnyx from the agent\'s Telnyx number, none reaches both; its receipts settle them', async () => {
    await twilioPort.refuse();
    try {
      const answers = await sendMany(12);
      for (const a of answers) {
        assert.equal(a.status, 200, JSON.stringify(a.json));
        assert.deepEqual([a.json.provider, a.json.from], ['telnyx', AT_TELNYX]);
      }
      const bodies = answers.map((a) => a.body);
      assert.deepEqual(reached(bodies), { twilio: bodies.map(() => 0), telnyx: bodies.map(() => 1) });
      // Telnyx's signed delivery events come to the same webhook URL and are verified by its driver.
      await eventually(
        async () => {
          const res = await t.call('GET', '/api/v1/inbox?limit=200', { token: routed.securityToken });
          const { entries } = (await res.json()) as { entries: { messageId: string; status: string; payload: { provider?: string } }[] };
          const delivered = answers.filter((a) => entries.some((e) => e.messageId === a.json.messageId && e.status === 'delivered' && e.payload.provider === 'telnyx'));
          return delivered.length === answers.length ? true : undefined;
        },
        { timeoutMs: 30_000, message: "every failed-over send's delivery receipt from Telnyx in the inbox" },
      );
      // An agent with no sender at Telnyx cannot fail over: its send fails, saying so.
      const [lone] = await sendMany(1, solo.securityToken);
      assert.equal(lone!.status, 502, JSON.stringify(lone!.json));
      assert.equal(lone!.json.code, 'PROVIDER_ERROR');
      assert.match(lone!.json.error, /telnyx: agent solo holds no sender there/);
      assert.equal(reached([lone!.body]).telnyx[0], 0);
    } finally {
      await twilioPort.restore();
    }
  });

  it('Twilio answering 503 before accepting: sends reach Telnyx, none reaches both; once Twilio answers again its circuit closes', async () => {
    await circuitClosed();
    t.sim.faults.add({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', status: 503 });
    try {
      // One after another, so that the circuit sees each failure before the next send.
      const answers = [];
      for (let i = 0; i < 12; i++) answers.push(await sendOne(routed.securityToken, '+14155550123'));
      for (const a of answers) {
        assert.equal(a.status, 200, JSON.stringify(a.json));
        assert.equal(a.json.provider, 'telnyx');
      }
      const bodies = answers.map((a) => a.body);
      assert.deepEqual(reached(bodies), { twilio: bodies.map(() => 0), telnyx: bodies.map(() => 1) });
      const refused = t.sim.requests('twilio').filter((r) => r.method === 'POST' && r.path.includes('/Messages.json') && r.status === 503).length;
      assert.ok(refused >= 3 && refused <= 6, `Twilio's circuit opened after 3 503s, probed at most a few times after (it was asked ${refused} times for 12 sends)`);
    } finally {
      t.sim.faults.clear();
    }
    await circuitClosed();
    const metrics = await (await t.call('GET', '/metrics', { token: t.orchestratorToken })).text();
    assert.match(metrics, /switchboard_provider_failovers_total\{channel="sms",from="twilio",to="telnyx"\} \d+/);
    assert.match(metrics, /switchboard_provider_send_attempts_total\{channel="sms",provider="twilio",outcome="refused"\} \d+/);
  });

  it('Twilio accepting and its answer lost: no send fails over, each is found at Twilio and sent once', async () => {
    await circuitClosed();
    t.sim.faults.add({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', hangAfterAccepting: true, times: 4 });
    try {
      const answers = await sendMany(4);
      for (const a of answers) {
        assert.equal(a.status, 200, JSON.stringify(a.json));
        assert.equal(a.json.provider, 'twilio');
      }
      const bodies = answers.map((a) => a.body);
      assert.deepEqual(reached(bodies), { twilio: bodies.map(() => 1), telnyx: bodies.map(() => 0) });
      assert.equal(t.sim.requests('twilio').filter((r) => r.fault === 'hang-after-accepting').length, 4, "each send's first answer was lost");
    } finally {
      t.sim.faults.clear();
    }
  });

  it('a destination whose prefix route prefers Telnyx goes there first', async () => {
    const [sent] = await sendMany(1, routed.securityToken, '+447700900123');
    assert.equal(sent!.status, 200, JSON.stringify(sent!.json));
    assert.deepEqual([sent!.json.provider, sent!.json.from], ['telnyx', AT_TELNYX]);
  });

  it('the operator adds a sender at Telnyx to the pool; the next agent provisioned holds it and can fail over', async () => {
    const added = await t.call('POST', '/admin/api/pools/phone', { token: t.orchestratorToken, json: { addresses: ['+12025550102', 'telnyx:+15555550101'] } });
    assert.equal(added.status, 200, await added.clone().text());
    assert.equal(((await added.json()) as { added: number }).added, 2);
    const bad = await t.call('POST', '/admin/api/pools/phone', { token: t.orchestratorToken, json: { addresses: ['telnyx:not-a-number'] } });
    assert.equal(bad.status, 400);
    const pools = (await (await t.call('GET', '/admin/api/pools', { token: t.orchestratorToken })).json()) as { entries: { address: string; provider?: string }[] };
    assert.equal(pools.entries.find((e) => e.address === '+15555550101')?.provider, 'telnyx');
    const late = await provisionAgent(t, 'late', ['sms']);
    await twilioPort.refuse();
    try {
      const [sent] = await sendMany(1, late.securityToken);
      assert.equal(sent!.status, 200, JSON.stringify(sent!.json));
      assert.deepEqual([sent!.json.provider, sent!.json.from], ['telnyx', '+15555550101']);
    } finally {
      await twilioPort.restore();
    }
  });
});
