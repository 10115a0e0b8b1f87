import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { describeDriverConformance, startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import driver, { type TelnyxSettings } from '../src/index.js';

const NUMBERS = ['+15005550006', '+15005550007'];
const CUSTOMER = '+14155550123';

let sim: Simulator;
let hooks: WebhookReceiver;

const settingsOf = (s: Simulator): TelnyxSettings => ({ apiKey: s.credentials.telnyx.apiKey, publicKey: s.credentials.telnyx.publicKey, baseUrl: s.baseUrls.telnyx });
const inbound = (extra: { tamper?: boolean; omitSignature?: boolean; timestamp?: Date } = {}) =>
  hooks.capture('sms', '/webhooks/agent-1/sms', (url) => sim.inbound.telnyxSms({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'hi', ...extra }));

describeDriverConformance({
  module: driver,
  before: async () => {
    sim = await startSimulator({ phoneNumbers: NUMBERS, statusCallbacks: false });
    hooks = await startWebhookReceiver();
  },
  after: async () => {
    await hooks.close();
    await sim.close();
  },
  settings: () => settingsOf(sim),
  wrongCredentials: () => ({ ...settingsOf(sim), apiKey: 'KEY0000_wrong' }),
  invalidSettings: [
    {},
    { apiKey: 'KEY1' },
    { apiKey: 'KEY1', publicKey: 'not base64' },
    { apiKey: '', publicKey: 'A'.repeat(43) + '=' },
    { apiKey: 'KEY1', publicKey: 'A'.repeat(43) + '=', baseUrl: 'ftp://example.com' },
    { apiKey: 'KEY1', publicKey: 'A'.repeat(43) + '=', tariff: { sms: -1 } },
    { apiKey: 'KEY1', publicKey: 'A'.repeat(43) + '=', unknown: true },
  ],
  sends: [
    { channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body: 'Hello from the conformance suite' },
    { channel: 'sms', from: NUMBERS[1]!, to: CUSTOMER, body: 'A picture', mediaUrls: ['https://media.example.com/a.jpg'] },
  ],
  unknownExternalId: '00000000-0000-4000-8000-000000000000',
  injectFault: (status) => sim.faults.add({ provider: 'telnyx', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  webhooks: {
    signed: () => inbound(),
    tampered: () => inbound({ tamper: true }),
    unsigned: () => inbound({ omitSignature: true }),
    expired: () => inbound({ timestamp: new Date(Date.now() - 10 * 60_000) }),
    malformed: () =>
      hooks.capture('sms', '/webhooks/agent-1/sms', (url) => sim.inbound.telnyxStatus({ url, messageId: '', status: 'delivered' })),
    expectEvents: (events) => {
      const [event] = events;
      assert.equal(event?.type, 'message');
      assert.ok(event.type === 'message');
      assert.deepEqual([event.from, event.to, event.body], [CUSTOMER, NUMBERS[0], 'hi']);
    },
  },
});
