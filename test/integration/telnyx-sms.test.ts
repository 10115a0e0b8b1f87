// Telnyx chosen for SMS the way an operator chooses it: DRIVERS names the package beside the
// built-in drivers, DRIVER_TELNYX_* carry its settings, SMS_DRIVER=telnyx, and no runtime code naming Telnyx. Sends go to the simulated
// Telnyx (not Twilio), its signed delivery events settle the message, and an inbound SMS reaches the agent.
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
const ORCHESTRATOR = 'sb_orch_test_telnyx_0123456789abcdefghijklmnop';

describe('Telnyx selected for the sms channel', { timeout: 60_000 }, () => {
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
  const stored = (sql: string) => gateway.runtime.inspect.stored.row<Record<string, unknown>>(sql);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-telnyx-'));
    sim = await startSimulator({ phoneNumbers: [NUMBER], statusCallbackDelayMs: 5 });
    // As an operator's .env says it: the package in DRIVERS, its settings as DRIVER_TELNYX_*, SMS_DRIVER choosing it.
    const settings = loadSettings({
      env: {
        DRIVERS: '@switchboard/driver-telnyx',
        DRIVER_TELNYX_API_KEY: sim.credentials.telnyx.apiKey,
        DRIVER_TELNYX_PUBLIC_KEY: sim.credentials.telnyx.publicKey,
        DRIVER_TELNYX_BASE_URL: sim.baseUrls.telnyx,
        SMS_DRIVER: 'telnyx',
        // Telnyx's driver offers voice too: calls stay with Twilio here.
        VOICE_DRIVER: 'twilio',
      },
      overrides: { PORT: 0, DATA_DIR: dir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ORCHESTRATOR_TOKEN: ORCHESTRATOR, DEMO_MODE: 'false', POOL_PHONE_NUMBERS: NUMBER },
    });
    // The built-in drivers (Twilio among them, offering sms too) pointed at the same simulator.
    gateway = await startGateway({ settings, logger: createLogger({ level: 'silent', pretty: false }), drivers: simulatorDriverSpecs(sim) });
    sim.gatewayUrl = gateway.url;
    const team = await gateway.runtime.inspect.tokens.teamToken();
    const provisioned = await call('POST', '/api/v1/provision', team, { agentId: 'tx', displayName: 'tx', channels: ['sms'] });
    assert.equal(provisioned.status, 201, JSON.stringify(provisioned.body));
    agentToken = provisioned.body.securityToken;
  });
  after(async () => {
    await gateway?.stop();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('without SMS_DRIVER, two drivers offering sms stop the start with DRIVER_CONFLICT', async () => {
    const other = mkdtempSync(join(tmpdir(), 'switchboard-telnyx-'));
    try {
      const settings = loadSettings({
        env: { DRIVERS: '@switchboard/driver-telnyx', DRIVER_TELNYX_API_KEY: sim.credentials.telnyx.apiKey, DRIVER_TELNYX_PUBLIC_KEY: sim.credentials.telnyx.publicKey, DRIVER_TELNYX_BASE_URL: sim.baseUrls.telnyx },
        overrides: { PORT: 0, DATA_DIR: other, NODE_ENV: 'test', LOG_LEVEL: 'silent', ORCHESTRATOR_TOKEN: ORCHESTRATOR, DEMO_MODE: 'false', POOL_PHONE_NUMBERS: NUMBER },
      });
      await assert.rejects(startGateway({ settings, logger: createLogger({ level: 'silent', pretty: false }), drivers: simulatorDriverSpecs(sim) }), { code: 'DRIVER_CONFLICT' });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('reports telnyx as the sms provider', async () => {
    const status = await call('GET', '/api/v1/channel-status?agentId=tx', agentToken);
    assert.equal(status.body.channels.sms.provider, 'telnyx');
  });

  it('sends through Telnyx only, and its signed delivery events settle the message as delivered with its cost', async () => {
    const res = await call('POST', '/api/v1/send-message', agentToken, { channel: 'sms', to: CUSTOMER, body: 'Sent through Telnyx' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const sent = sim.messages({ provider: 'telnyx' });
    assert.deepEqual(sent.map((m) => [m.id, m.from, m.to, m.body]), [[res.body.externalId, NUMBER, CUSTOMER, 'Sent through Telnyx']]);
    assert.deepEqual(sim.messages({ provider: 'twilio' }), [], 'nothing went to Twilio');
    assert.ok(sent[0]?.statusCallback?.startsWith(gateway.url), 'the gateway asked for delivery events');
    await eventuallyPasses(async () => {
      const row = await stored(`SELECT status, cost FROM messages WHERE external_id = '${res.body.externalId}'`);
      assert.equal(row?.['status'], 'delivered');
      assert.equal(Number(row?.['cost']), 0.004);
    });
  });

  it('takes an inbound SMS signed by Telnyx, and refuses a tampered one', async () => {
    const ok = await sim.inbound.telnyxSms({ agentId: 'tx', from: CUSTOMER, to: NUMBER, body: 'Hello over Telnyx' });
    assert.equal(ok.status, 200, ok.body);
    const tampered = await sim.inbound.telnyxSms({ agentId: 'tx', from: CUSTOMER, to: NUMBER, body: 'forged', tamper: true });
    assert.ok(tampered.status === 401 || tampered.status === 403, `a tampered webhook is refused, got ${tampered.status}`);
    await eventuallyPasses(async () => {
      const row = await stored(`SELECT body FROM messages WHERE agent_id = 'tx' AND direction = 'inbound' AND external_id = '${ok.id}'`);
      assert.equal(row?.['body'], 'Hello over Telnyx');
    });
    const forged = await stored(`SELECT COUNT(*) AS n FROM messages WHERE agent_id = 'tx' AND direction = 'inbound' AND body LIKE '%forged%'`);
    assert.equal(Number(forged?.['n']), 0);
  });
});
