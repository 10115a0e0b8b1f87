import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { describeDriverConformance, startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import driver, { type TelnyxSettings } from '../src/index.js';

const NUMBERS = ['+15005550006', '+15005550007'];
const CUSTOMER = '+14155550123';

let sim: Simulator;
let hooks: WebhookReceiver;

const settingsOf = (s: Simulator): TelnyxSettings => ({ apiKey: s.credentials.telnyx.apiKey, publicKey: s.credentials.telnyx.publicKey, baseUrl: s.baseUrls.telnyx, connectionId: 'conformance-connection' });
const STREAM = 'wss://gateway.switchboard.test/webhooks/agent-1/voice-ws';
const callEvent = (o: { eventType: string; callControlId?: string }) =>
  hooks.capture('voice', '/webhooks/agent-1/call-status', (url) => sim.inbound.telnyxCallEvent({ url, from: NUMBERS[0]!, to: CUSTOMER, direction: 'outbound', durationSeconds: 42, ...o }));
const inbound = (extra: { tamper?: boolean; omitSignature?: boolean; timestamp?: Date } = {}) =>
  hooks.capture('sms', '/webhooks/agent-1/sms', (url) => sim.inbound.telnyxSms({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'hi', ...extra }));

describeDriverConformance({
  module: driver,
  before: async () => {
    sim = await startSimulator({ phoneNumbers: NUMBERS, statusCallbacks: false, phone: { answerOutbound: false } });
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
  telephony: {
    unknownCallSid: 'v3:' + 'A'.repeat(32),
    call: () => ({
      from: NUMBERS[0]!,
      to: CUSTOMER,
      answerUrl: `${hooks.url}/webhooks/agent-1/outbound-voice?session=ses_1`,
      statusCallbackUrl: `${hooks.url}/webhooks/agent-1/call-status`,
      timeoutSeconds: 20,
      steps: [{ kind: 'connect', mode: 'stream', url: STREAM, parameters: { sessionId: 'ses_1' } }],
    }),
    callWebhook: () => callEvent({ eventType: 'call.hangup', callControlId: 'v3:' + 'c'.repeat(32) }),
    malformedCallWebhook: () => callEvent({ eventType: 'call.answered', callControlId: '' }),
    expectCallStatus: (event) => assert.deepEqual([event.callSid, event.status, event.durationSeconds, event.direction], ['v3:' + 'c'.repeat(32), 'completed', 42, 'outbound']),
  },
  skip: {
    'render produces a document of the declared content type':
      "Call Control reads no document in a webhook's answer: steps become commands (render shows them as JSON), and relay mode is Twilio's ConversationRelay, which Telnyx calls do not run",
  },
});
