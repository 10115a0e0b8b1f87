// Meta's WhatsApp Cloud API chosen for the whatsapp channel the way an operator chooses it: DRIVERS names the
// package beside the built-in drivers, DRIVER_WHATSAPP_CLOUD_* carry its settings, WHATSAPP_DRIVER=whatsapp-cloud.
// The simulated Graph API checks the webhook URL with Meta's GET handshake, sends go to it (not Twilio), its
// signed status webhooks settle them, inbound messages reach the agent, and the 24-hour window is Switchboard's own check.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { simulatorDriverSpecs, startGateway, type Gateway } from '@switchboard/gateway';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { createLogger, loadSettings } from '@switchboard/runtime';
import { eventuallyPasses } from '@switchboard/runtime/testing';

const NUMBER = '+15555550100';
const CUSTOMER = '+14155550123';
const STRANGER = '+14155550181';
const ORCHESTRATOR = 'sb_orch_test_wacloud_0123456789abcdefghijklmn';

describe('WhatsApp Cloud API selected for the whatsapp channel', { timeout: 60_000 }, () => {
  let sim: Simulator;
  let gateway: Gateway;
  let dir: string;
  let agentToken: string;

  const call = async (method: string, path: string, token: string, json?: unknown) => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const send = (json: Record<string, unknown>) => call('POST', '/api/v1/send-message', agentToken, { channel: 'whatsapp', ...json });
  const stored = (sql: string) => gateway.runtime.inspect.stored.row<Record<string, unknown>>(sql);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-wacloud-'));
    sim = await startSimulator({ phoneNumbers: [NUMBER], statusCallbackDelayMs: 5 });
    const c = sim.credentials.whatsappCloud;
    const settings = loadSettings({
      env: {
        DRIVERS: '@switchboard/driver-whatsapp-cloud',
        DRIVER_WHATSAPP_CLOUD_ACCESS_TOKEN: c.accessToken,
        DRIVER_WHATSAPP_CLOUD_APP_SECRET: c.appSecret,
        DRIVER_WHATSAPP_CLOUD_PHONE_NUMBER_ID: c.phoneNumberId,
        DRIVER_WHATSAPP_CLOUD_WABA_ID: c.wabaId,
        DRIVER_WHATSAPP_CLOUD_VERIFY_TOKEN: c.verifyToken,
        DRIVER_WHATSAPP_CLOUD_BASE_URL: sim.baseUrls.whatsappCloud,
        WHATSAPP_DRIVER: 'whatsapp-cloud',
      },
      overrides: { PORT: 0, DATA_DIR: dir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ORCHESTRATOR_TOKEN: ORCHESTRATOR, DEMO_MODE: 'false', POOL_WHATSAPP_SENDERS: NUMBER },
    });
    // The built-in drivers (Twilio among them, offering whatsapp too) pointed at the same simulator.
    gateway = await startGateway({ settings, logger: createLogger({ level: 'silent', pretty: false }), drivers: simulatorDriverSpecs(sim) });
    sim.gatewayUrl = gateway.url;
    const team = await gateway.runtime.inspect.tokens.teamToken();
    const provisioned = await call('POST', '/api/v1/provision', team, { agentId: 'wa', displayName: 'wa', channels: ['whatsapp'] });
    assert.equal(provisioned.status, 201, JSON.stringify(provisioned.body));
    agentToken = provisioned.body.securityToken;
  });
  after(async () => {
    await gateway?.stop();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports whatsapp-cloud as the whatsapp provider', async () => {
    const status = await call('GET', '/api/v1/channel-status?agentId=wa', agentToken);
    assert.equal(status.body.channels.whatsapp.provider, 'whatsapp-cloud');
  });

  it("answers Meta's GET handshake with the challenge when the verify token matches, 403 when not, 404 where no provider checks", async () => {
    const c = sim.credentials.whatsappCloud;
    // As the operator registers the agent's URL for the number: Meta checks it with the handshake first.
    const subscribed = await fetch(`${sim.baseUrls.whatsappCloud}/v23.0/${c.phoneNumberId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ webhook_configuration: { override_callback_uri: `${gateway.url}/webhooks/wa/whatsapp`, verify_token: c.verifyToken } }),
    });
    assert.equal(subscribed.status, 200, await subscribed.clone().text());
    const check = (channel: string, token: string) => fetch(`${gateway.url}/webhooks/wa/${channel}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=1158201444`);
    const ok = await check('whatsapp', c.verifyToken);
    assert.deepEqual([ok.status, ok.headers.get('content-type')?.split(';')[0], await ok.text()], [200, 'text/plain', '1158201444']);
    const wrong = await check('whatsapp', 'not-the-token');
    assert.equal(wrong.status, 403);
    assert.equal(((await wrong.json()) as { code: string }).code, 'FORBIDDEN');
    assert.equal((await check('sms', c.verifyToken)).status, 404, 'Twilio, on sms, checks no URL this way');
  });

  it('refuses a free-form message to someone who never wrote with 409, before the provider is called', async () => {
    const before = sim.requests('whatsapp-cloud').length;
    const res = await send({ to: STRANGER, body: 'Are you there?' });
    assert.deepEqual([res.status, res.body.code], [409, 'WHATSAPP_WINDOW_CLOSED']);
    assert.equal(sim.requests('whatsapp-cloud').length, before, 'the Graph API was not called');
    assert.deepEqual(sim.messages({ to: STRANGER }), []);
  });

  it('lists the templates from the WhatsApp Business Account, and sends one outside the window: delivered by its signed statuses', async () => {
    const listed = await call('GET', '/api/v1/whatsapp/templates', agentToken);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.equal(listed.body.provider, 'whatsapp-cloud');
    assert.deepEqual(listed.body.templates.map((t: { name: string }) => t.name), ['appointment_reminder', 'order_update']);

    const res = await send({ to: STRANGER, template: { name: 'appointment_reminder', language: 'en', variables: { 1: 'Sam', 2: 'Friday at 9:00' } } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const sent = sim.messages({ provider: 'whatsapp-cloud', to: STRANGER });
    assert.deepEqual(sent.map((m) => [m.id, m.from, m.template?.name]), [[res.body.externalId, NUMBER, 'appointment_reminder']]);
    assert.deepEqual(sim.messages({ provider: 'twilio' }), [], 'nothing went to Twilio');
    await eventuallyPasses(async () => {
      const row = await stored(`SELECT status FROM messages WHERE external_id = '${res.body.externalId}'`);
      assert.equal(row?.['status'], 'delivered');
    });
  });

  it('takes an inbound message signed by Meta and refuses a tampered one; then free-form replies go out and are delivered', async () => {
    const ok = await sim.inbound.whatsappCloud({ agentId: 'wa', from: CUSTOMER, to: NUMBER, body: 'Hello over the Cloud API' });
    assert.equal(ok.status, 200, ok.body);
    const tampered = await sim.inbound.whatsappCloud({ agentId: 'wa', from: CUSTOMER, to: NUMBER, body: 'forged', tamper: true });
    assert.ok(tampered.status === 401 || tampered.status === 403, `a tampered webhook is refused, got ${tampered.status}`);
    await eventuallyPasses(async () => {
      const row = await stored(`SELECT body, from_address FROM messages WHERE agent_id = 'wa' AND direction = 'inbound' AND external_id = '${ok.id}'`);
      assert.equal(row?.['body'], 'Hello over the Cloud API');
    });
    const forged = await stored(`SELECT COUNT(*) AS n FROM messages WHERE agent_id = 'wa' AND direction = 'inbound' AND body LIKE '%forged%'`);
    assert.equal(Number(forged?.['n']), 0);

    const reply = await send({ to: CUSTOMER, body: 'Happy to help' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(sim.messages({ provider: 'whatsapp-cloud', to: CUSTOMER })[0]?.body, 'Happy to help');
    await eventuallyPasses(async () => {
      const row = await stored(`SELECT status FROM messages WHERE external_id = '${reply.body.externalId}'`);
      assert.equal(row?.['status'], 'delivered');
    });
  });
});
