import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeDriverConformance } from '@switchboard/sdk/testing';
import driver from '../src/index.js';
import { startFakeProvider, type FakeProvider } from './provider.js';

let provider: FakeProvider;
const settings = () => ({ apiKey: provider.apiKey, webhookSecret: provider.webhookSecret, baseUrl: provider.url });
const inbound = () => ({
  type: 'message.received',
  id: 'evt_1',
  message: { id: 'msg_in_1', from: '+15550000001', to: '+15550000002', body: 'hi there', received_at: '2025-01-01T00:00:00Z' },
});

// The whole conformance run: fixtures in, cases out.
describeDriverConformance({
  module: driver,
  before: async () => void (provider = await startFakeProvider()),
  after: () => provider.close(),
  settings,
  wrongCredentials: () => ({ ...settings(), apiKey: 'key_wrong_wrong' }),
  invalidSettings: [{}, { apiKey: 'key_12345678' }, { apiKey: 'short', webhookSecret: 'a-long-enough-secret' }, { ...{ apiKey: 'key_12345678', webhookSecret: 'a-long-enough-secret' }, extra: true }],
  sends: [{ channel: 'sms', from: '+15550000002', to: '+15550000001', body: 'hello from the conformance suite' }],
  injectFault: (status) => provider.failNext(status),
  clearFaults: () => provider.clearFaults(),
  webhooks: {
    signed: () => provider.webhook(inbound()),
    malformed: () => provider.webhook({ type: 'message.received', message: { id: 42 } }),
    expired: () => provider.webhook(inbound(), { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
    expectEvents: (events) => assert.deepEqual(events.map((e) => e.externalId), ['msg_in_1']),
  },
});

describe('example driver', () => {
  let sms: FakeProvider;
  before(async () => void (sms = await startFakeProvider()));
  after(() => sms.close());

  it('forwards the idempotency key, so a retried send is not sent twice', async () => {
    const d = await driver.create({ apiKey: sms.apiKey, webhookSecret: sms.webhookSecret, baseUrl: sms.url }, { logger: console, publicBaseUrl: 'http://127.0.0.1' });
    const message = { channel: 'sms' as const, from: '+15550000002', to: '+15550000003', body: 'once', idempotencyKey: 'k-1' };
    const first = await d.send!(message);
    const second = await d.send!(message);
    assert.equal(second.externalId, first.externalId);
    assert.equal(sms.messages.filter((m) => m.to === '+15550000003').length, 1);
  });

  it('parses status receipts with their price as a positive cost', async () => {
    const d = await driver.create({ apiKey: sms.apiKey, webhookSecret: sms.webhookSecret, baseUrl: sms.url }, { logger: console, publicBaseUrl: 'http://127.0.0.1' });
    const request = sms.webhook({ type: 'message.status', id: 'evt_9', message_id: 'msg_1', status: 'delivered', price: '-0.0075' });
    d.webhooks!.verify(request);
    assert.deepEqual(await d.webhooks!.parse(request), [
      { type: 'status', channel: 'sms', externalId: 'msg_1', status: 'delivered', cost: 0.0075, eventId: 'evt_9' },
    ]);
  });
});
