import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { describeDriverConformance, startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import driver, { type PostmarkSettings } from '../src/index.js';

const AGENT = 'agent@switchboard.test';
const PERSON = 'person@example.com';
const PATH = '/webhooks/agent-1/email';

let sim: Simulator;
let hooks: WebhookReceiver;

const settingsOf = (s: Simulator): PostmarkSettings => {
  const c = s.credentials.postmark;
  return { serverToken: c.serverToken, webhookUsername: c.webhookUsername, webhookPassword: c.webhookPassword, baseUrl: s.baseUrls.postmark };
};
const inbound = (extra: { omitCredentials?: boolean } = {}) =>
  hooks.capture('email', PATH, (url) => sim.inbound.postmarkEmail({ url, from: `Pat Person <${PERSON}>`, to: AGENT, subject: 'Question', text: 'Are you there?', ...extra }));

describeDriverConformance({
  module: driver,
  before: async () => {
    sim = await startSimulator({ statusCallbacks: false });
    hooks = await startWebhookReceiver();
  },
  after: async () => {
    await hooks.close();
    await sim.close();
  },
  settings: () => settingsOf(sim),
  wrongCredentials: () => ({ ...settingsOf(sim), serverToken: '00000000-0000-4000-8000-000000000000' }),
  invalidSettings: [
    {},
    { serverToken: 't', webhookUsername: 'postmark' },
    { serverToken: '', webhookUsername: 'postmark', webhookPassword: 'a-long-enough-password' },
    { serverToken: 't', webhookUsername: 'post:mark', webhookPassword: 'a-long-enough-password' },
    { serverToken: 't', webhookUsername: 'postmark', webhookPassword: 'short' },
    { serverToken: 't', webhookUsername: 'postmark', webhookPassword: 'has spaces in it, sixteen+' },
    { serverToken: 't', webhookUsername: 'postmark', webhookPassword: 'a-long-enough-password', baseUrl: 'api.postmarkapp.com' },
    { serverToken: 't', webhookUsername: 'postmark', webhookPassword: 'a-long-enough-password', unknown: true },
  ],
  unknownExternalId: '00000000-0000-4000-8000-000000000000',
  sends: [{ channel: 'email', from: AGENT, to: PERSON, subject: 'Hello', body: 'Plain text', html: '<p>Plain text</p>', idempotencyKey: 'conformance-1' }],
  injectFault: (status) => sim.faults.add({ provider: 'postmark', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  webhooks: {
    signed: () => inbound(),
    unsigned: () => inbound({ omitCredentials: true }),
    malformed: async () => {
      const request = await inbound();
      return { ...request, rawBody: Buffer.from(JSON.stringify({ RecordType: 'Delivery', Recipient: PERSON })) };
    },
    expectEvents: (events) => {
      const [event] = events;
      assert.ok(event?.type === 'message');
      assert.deepEqual([event.from, event.to, event.subject, event.body], [PERSON, AGENT, 'Question', 'Are you there?']);
    },
  },
  skip: {
    'a tampered body is rejected': 'Postmark signs no webhook body: it sends the HTTP Basic credentials of the webhook URL, which prove the sender, and TLS keeps the body intact',
    'an expired signature is rejected': 'Postmark signs no timestamp: its webhooks carry HTTP Basic credentials only',
  },
});
