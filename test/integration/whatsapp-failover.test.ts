// Two WhatsApp providers for one channel (WHATSAPP_DRIVER=twilio,whatsapp-cloud): sends go through Twilio
// and fail over to Meta's Cloud API only when Twilio provably did not take them (its port refusing
// connections, then a 503 before accepting), from the number the agent holds there; a send whose answer
// Twilio lost after accepting it is settled at Twilio and never sent through the Cloud API. The customer has
// written to both business numbers, so each provider's 24-hour window is open. Counted at both simulated
// providers, embedded and clustered (scripts/test.mjs).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulatorDriverSpecs } from '@switchboard/gateway';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const OWN = '+14155550170';
/** The simulated Cloud API's business number (its phone number id's): the agent's sender there. */
const AT_CLOUD = '+15555550100';
const CUSTOMER = '+14155550123';
/** A customer who wrote to the agent's Twilio number only: Meta's window for the Cloud API number is closed. */
const TWILIO_ONLY = '+14155550124';

describe('failover between two WhatsApp providers: Twilio and the WhatsApp Cloud API', { timeout: 180_000 }, () => {
  let t: TestGateway;
  let twilioPort: TcpProxy;
  let simPort = 0;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let n = 0;

  before(async () => {
    // Twilio is reached through a proxy the test can close (connections refused) and open again.
    twilioPort = await startTcpProxy(() => simPort);
    t = await startTestGateway(
      { WHATSAPP_DRIVER: 'twilio,whatsapp-cloud', POOL_WHATSAPP_SENDERS: `${OWN},whatsapp-cloud:${AT_CLOUD}`, PROVIDER_CIRCUIT_FAILURES: 3, PROVIDER_CIRCUIT_HALF_OPEN_MS: 300, SEND_TIMEOUT_MS: 1500 },
      undefined,
      {
        drivers: (sim) => {
          simPort = Number(new URL(sim.url).port);
          const c = sim.credentials.whatsappCloud;
          return [
            ...simulatorDriverSpecs(sim).map((spec) => (spec.packageName === '@switchboard/driver-twilio' ? { ...spec, settings: { ...spec.settings, baseUrl: sim.baseUrls.twilio.replace(`:${simPort}/`, `:${twilioPort.port}/`) } } : spec)),
            { packageName: '@switchboard/driver-whatsapp-cloud', settings: { accessToken: c.accessToken, appSecret: c.appSecret, phoneNumberId: c.phoneNumberId, wabaId: c.wabaId, verifyToken: c.verifyToken, baseUrl: sim.baseUrls.whatsappCloud } },
          ];
        },
      },
    );
    agent = await provisionAgent(t, 'wa-routed', ['whatsapp']);
    // As the operator registers the agent's webhook URL for its Cloud API number (Meta posts statuses there).
    t.sim.whatsappCloud.subscribe(`${t.url}/webhooks/wa-routed/whatsapp`, AT_CLOUD);
    // The customer writes to the agent's number at each provider: each one's service window is open.
    assert.equal((await t.sim.inbound.whatsapp({ agentId: 'wa-routed', from: CUSTOMER, to: OWN, body: 'Hello on Twilio' })).status, 200);
    const cloud = await t.sim.inbound.whatsappCloud({ agentId: 'wa-routed', from: CUSTOMER, to: AT_CLOUD, body: 'Hello on the Cloud API' });
    assert.equal(cloud.status, 200, cloud.body);
    await eventually(
      async () => {
        const { entries } = (await (await t.call('GET', '/api/v1/inbox?limit=50', { token: agent.securityToken })).json()) as { entries: { payload: { body?: string } }[] };
        return entries.filter((e) => e.payload.body?.startsWith('Hello on')).length === 2 || undefined;
      },
      { timeoutMs: 15_000, message: "the customer's messages through both providers in the inbox" },
    );
  });
  after(async () => {
    t?.sim.faults.clear();
    await t?.close();
    await twilioPort?.close();
  });

  /** Sends one WhatsApp message with a body of its own; answers the body with the response. */
  const sendOne = async (json: Record<string, unknown> = {}) => {
    const body = `whatsapp failover check ${++n}`;
    const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'whatsapp', to: CUSTOMER, body, ...json } });
    return { body, status: res.status, json: (await res.json()) as Record<string, any> };
  };
  const sendMany = (count: number) => Promise.all(Array.from({ length: count }, () => sendOne()));
  /** How many times each body reached each simulated provider. */
  const reached = (bodies: readonly string[]) => {
    const count = (provider: 'twilio' | 'whatsapp-cloud') => bodies.map((b) => t.sim.messages({ provider }).filter((m) => m.body === b).length);
    return { twilio: count('twilio'), cloud: count('whatsapp-cloud') };
  };
  /** The inbox entries of the agent's sends, by message id. */
  const sentEntries = async () => {
    const { entries } = (await (await t.call('GET', '/api/v1/inbox?limit=200', { token: agent.securityToken })).json()) as { entries: { messageId: string; status: string; payload: { provider?: string } }[] };
    return entries;
  };
  const circuitClosed = () =>
    eventually(async () => ((await sendOne()).json.provider === 'twilio' ? true : undefined), { timeoutMs: 20_000, intervalMs: 200, message: "Twilio's circuit to close again once it answers" });

  it('provisioning gives the agent a sender at each provider; with Twilio well, sends go through it', async () => {
    assert.equal(agent.channels.whatsapp!.address, OWN);
    const sent = await sendOne();
    assert.equal(sent.status, 200, JSON.stringify(sent.json));
    assert.deepEqual([sent.json.provider, sent.json.from], ['twilio', OWN]);
    assert.deepEqual(reached([sent.body]), { twilio: [1], cloud: [0] });
  });

  it("Twilio refusing connections: every send goes once through the Cloud API from the agent's number there, none through Twilio; its signed statuses settle them", async () => {
    await twilioPort.refuse();
    try {
      const answers = await sendMany(8);
      for (const a of answers) {
        assert.equal(a.status, 200, JSON.stringify(a.json));
        assert.deepEqual([a.json.provider, a.json.from], ['whatsapp-cloud', AT_CLOUD]);
      }
      const bodies = answers.map((a) => a.body);
      assert.deepEqual(reached(bodies), { twilio: bodies.map(() => 0), cloud: bodies.map(() => 1) });
      // A template goes the same way, by its name and language at the Cloud API.
      const template = await sendOne({ body: undefined, template: { name: 'appointment_reminder', language: 'en', variables: { 1: 'Sam', 2: 'Friday at 9:00' } } });
      assert.equal(template.status, 200, JSON.stringify(template.json));
      assert.equal(template.json.provider, 'whatsapp-cloud');
      assert.equal(t.sim.messages({ provider: 'whatsapp-cloud' }).find((m) => m.id === template.json.externalId)?.template?.name, 'appointment_reminder');
      // Meta's signed status webhooks come to the same URL, are verified by its driver and settle each send.
      await eventually(
        async () => {
          const entries = await sentEntries();
          const delivered = answers.filter((a) => entries.some((e) => e.messageId === a.json.messageId && e.status === 'delivered' && e.payload.provider === 'whatsapp-cloud'));
          return delivered.length === answers.length || undefined;
        },
        { timeoutMs: 30_000, message: "every failed-over send's delivery status from the Cloud API in the inbox, naming it" },
      );
    } finally {
      await twilioPort.restore();
    }
  });

  it('Twilio answering 503 before accepting: sends go through the Cloud API, none through both; once Twilio answers its circuit closes', async () => {
    await circuitClosed();
    t.sim.faults.add({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', status: 503 });
    try {
      // One after another, so that the circuit sees each failure before the next send.
      const answers = [];
      for (let i = 0; i < 8; i++) answers.push(await sendOne());
      for (const a of answers) assert.deepEqual([a.status, a.json.provider, a.json.from], [200, 'whatsapp-cloud', AT_CLOUD], JSON.stringify(a.json));
      const bodies = answers.map((a) => a.body);
      assert.deepEqual(reached(bodies), { twilio: bodies.map(() => 0), cloud: bodies.map(() => 1) });
      const refused = t.sim.requests('twilio').filter((r) => r.method === 'POST' && r.path.includes('/Messages.json') && r.status === 503).length;
      assert.ok(refused >= 3 && refused <= 6, `Twilio's circuit opened after 3 503s, probed at most a few times after (it was asked ${refused} times for 8 sends)`);
    } finally {
      t.sim.faults.clear();
    }
    await circuitClosed();
    const metrics = await (await t.call('GET', '/metrics', { token: t.orchestratorToken })).text();
    assert.match(metrics, /switchboard_provider_failovers_total\{channel="whatsapp",from="twilio",to="whatsapp-cloud"\} [1-9]/);
  });

  it('Twilio accepting and its answer lost: nothing goes through the Cloud API; each send is found at Twilio and sent once', async () => {
    await circuitClosed();
    const cloudBefore = t.sim.messages({ provider: 'whatsapp-cloud' }).length;
    t.sim.faults.add({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', hangAfterAccepting: true, times: 3 });
    try {
      const answers = await sendMany(3);
      for (const a of answers) assert.deepEqual([a.status, a.json.provider], [200, 'twilio'], JSON.stringify(a.json));
      const bodies = answers.map((a) => a.body);
      assert.deepEqual(reached(bodies), { twilio: bodies.map(() => 1), cloud: bodies.map(() => 0) });
      assert.equal(t.sim.messages({ provider: 'whatsapp-cloud' }).length, cloudBefore, 'nothing was sent through the Cloud API');
      assert.equal(t.sim.requests('twilio').filter((r) => r.fault === 'hang-after-accepting').length, 3, "each send's first answer was lost");
    } finally {
      t.sim.faults.clear();
    }
  });

  it("a free-form send failed over to a number the customer never wrote to is taken by Meta and fails with 131047 (its window is per number), sent once", async () => {
    assert.equal((await t.sim.inbound.whatsapp({ agentId: 'wa-routed', from: TWILIO_ONLY, to: OWN, body: 'Only on Twilio' })).status, 200);
    await eventually(
      async () => {
        const { entries } = (await (await t.call('GET', '/api/v1/inbox?limit=200', { token: agent.securityToken })).json()) as { entries: { payload: { body?: string } }[] };
        return entries.some((e) => e.payload.body === 'Only on Twilio') || undefined;
      },
      { timeoutMs: 15_000, message: "the customer's message in the inbox" },
    );
    await twilioPort.refuse();
    try {
      const sent = await sendOne({ to: TWILIO_ONLY });
      assert.deepEqual([sent.status, sent.json.provider], [200, 'whatsapp-cloud'], JSON.stringify(sent.json));
      assert.deepEqual(reached([sent.body]), { twilio: [0], cloud: [1] });
      await eventually(
        async () => (await sentEntries()).some((e) => e.messageId === sent.json.messageId && e.status === 'failed' && e.payload.provider === 'whatsapp-cloud') || undefined,
        { timeoutMs: 30_000, message: "the send's failure from the Cloud API in the inbox" },
      );
    } finally {
      await twilioPort.restore();
    }
  });
});
