import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { describeDriverConformance, startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import driver, { type WhatsAppCloudSettings } from '../src/index.js';

const NUMBERS = ['+15005550006', '+15005550007'];
const CUSTOMER = '+14155550123';
const PATH = '/webhooks/agent-1/whatsapp';

let sim: Simulator;
let hooks: WebhookReceiver;

const settingsOf = (s: Simulator): WhatsAppCloudSettings => {
  const c = s.credentials.whatsappCloud;
  return { accessToken: c.accessToken, appSecret: c.appSecret, phoneNumberId: c.phoneNumberId, wabaId: c.wabaId, verifyToken: c.verifyToken, baseUrl: s.baseUrls.whatsappCloud };
};
const inbound = () => hooks.capture('whatsapp', PATH, (url) => sim.inbound.whatsappCloud({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'hi' }));

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
  wrongCredentials: () => ({ ...settingsOf(sim), accessToken: 'EAAwrong' }),
  invalidSettings: [
    {},
    { accessToken: 'EAA1', appSecret: 's' },
    { accessToken: 'EAA1', appSecret: 's', phoneNumberId: 'not-a-number' },
    { accessToken: '', appSecret: 's', phoneNumberId: '123' },
    { accessToken: 'EAA1', appSecret: 's', phoneNumberId: '123', baseUrl: 'ftp://example.com' },
    { accessToken: 'EAA1', appSecret: 's', phoneNumberId: '123', apiVersion: '23' },
    { accessToken: 'EAA1', appSecret: 's', phoneNumberId: '123', unknown: true },
  ],
  sends: [
    { channel: 'whatsapp', from: NUMBERS[0]!, to: CUSTOMER, body: 'Hello from the conformance suite' },
    { channel: 'whatsapp', from: NUMBERS[0]!, to: CUSTOMER, body: '', template: { name: 'order_update', language: 'en', variables: { 1: '#1042', 2: 'tomorrow' } } },
  ],
  injectFault: (status) => sim.faults.add({ provider: 'whatsapp-cloud', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  webhooks: {
    signed: () => inbound(),
    malformed: () => {
      const rawBody = Buffer.from(JSON.stringify({ object: 'page', entry: 'none' }));
      const signature = `sha256=${createHmac('sha256', sim.credentials.whatsappCloud.appSecret).update(rawBody).digest('hex')}`;
      return { channel: 'whatsapp', method: 'POST', url: `${hooks.url}${PATH}`, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, rawBody };
    },
    expectEvents: (events) => {
      const [event] = events;
      assert.equal(event?.type, 'message');
      assert.ok(event.type === 'message');
      assert.deepEqual([event.from, event.to, event.body], [CUSTOMER, NUMBERS[0], 'hi']);
    },
  },
  skip: {
    'an expired signature is rejected': 'Meta signs no timestamp: X-Hub-Signature-256 covers the body alone',
  },
});
