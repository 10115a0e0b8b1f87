import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

interface Alert {
  level: string;
  message: string;
}

/** The dashboard's alerts as an operator meets them right after the first provisioning (demo mode). */
describe('dashboard alerts', () => {
  let t: TestGateway;
  let phone = '';
  const alerts = async (): Promise<Alert[]> => {
    const res = await t.call('GET', '/admin/api/dashboard', { token: t.orchestratorToken });
    assert.equal(res.status, 200);
    return ((await res.json()) as { alerts: Alert[] }).alerts;
  };

  before(async () => {
    t = await startTestGateway({ POOL_PHONE_NUMBERS: '+12025550100' });
  });
  after(() => t.close());

  it('raises no email-pool alert when addresses are minted from the email domain', async () => {
    await provisionAgent(t, 'alerts-email', ['email']);
    const list = await alerts();
    assert.deepEqual(list.filter((a) => /email/i.test(a.message)), [], JSON.stringify(list));
    assert.deepEqual(list.filter((a) => a.level === 'critical'), [], JSON.stringify(list));
  });

  it('still says when a pool agents draw from is empty', async () => {
    phone = (await provisionAgent(t, 'alerts-sms', ['sms'])).channels.sms!.address;
    const critical = (await alerts()).filter((a) => a.level === 'critical').map((a) => a.message);
    assert.deepEqual(critical, ['The phone pool is empty: new agents cannot get a phone address.']);
  });

  it('counts dead letters in words', async () => {
    const inbound = await t.sim.inbound.sms({ agentId: 'alerts-sms', from: '+14155550177', to: phone, body: 'nobody collects this' });
    assert.equal(inbound.status, 200);
    // The dead letter is written once the inbound message finds nobody to take it (on a node, in a cluster).
    const info = await eventually(
      async () => {
        const info = (await alerts()).filter((a) => a.level === 'info').map((a) => a.message);
        return info.length > 0 && info;
      },
      { timeoutMs: 20_000, intervalMs: 100, message: 'an info alert' },
    );
    assert.deepEqual(info, ['1 dead letter waits to be collected.']);
  });
});
