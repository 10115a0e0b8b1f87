import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import type { Driver, WebhookRequest } from '@switchboard/sdk';
import { describeDriverConformance, startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import twilio from 'twilio';
import driver, { countSegments, type TwilioSettings } from '../src/index.js';

const NUMBERS = ['+15005550006', '+15005550007'];
const CUSTOMER = '+14155550123';
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };

let sim: Simulator;
let hooks: WebhookReceiver;

const settingsOf = (s: Simulator): TwilioSettings => ({ ...s.credentials.twilio, baseUrl: s.baseUrls.twilio });

/** A form body signed like Twilio signs it, for payloads the simulator never sends. */
function signedForm(authToken: string, url: string, params: Record<string, string>): WebhookRequest {
  return {
    channel: 'sms',
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, url, params) },
    rawBody: Buffer.from(new URLSearchParams(params).toString()),
  };
}

const signedVoiceForm = (authToken: string, url: string, params: Record<string, string>): WebhookRequest => ({ ...signedForm(authToken, url, params), channel: 'voice' });

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
  wrongCredentials: () => ({ ...settingsOf(sim), authToken: '0'.repeat(32) }),
  invalidSettings: [
    {},
    { accountSid: 'AC' + '0'.repeat(32) },
    { accountSid: 'not-a-sid', authToken: 'x' },
    { accountSid: 'AC' + '0'.repeat(32), authToken: 'x', baseUrl: 'ftp://example.com' },
    { accountSid: 'AC' + '0'.repeat(32), authToken: 'x', tariff: { sms: -1 } },
    { accountSid: 'AC' + '0'.repeat(32), authToken: 'x', unknown: true },
  ],
  sends: [
    { channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body: 'Hello from the conformance suite' },
    { channel: 'whatsapp', from: NUMBERS[1]!, to: CUSTOMER, body: 'Hello on WhatsApp' },
  ],
  unknownExternalId: 'SM' + '0'.repeat(32),
  injectFault: (status) => sim.faults.add({ provider: 'twilio', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  webhooks: {
    signed: () => hooks.capture('sms', '/webhooks/agent-1/sms', (url) => sim.inbound.sms({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'hi' })),
    tampered: () => hooks.capture('sms', '/webhooks/agent-1/sms', (url) => sim.inbound.sms({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'hi', tamper: true })),
    unsigned: () => hooks.capture('sms', '/webhooks/agent-1/sms', (url) => sim.inbound.sms({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'hi', omitSignature: true })),
    malformed: () => signedForm(sim.credentials.twilio.authToken, `${hooks.url}/webhooks/agent-1/sms`, { AccountSid: sim.credentials.twilio.accountSid, Body: 'no sid' }),
    expectEvents: (events) => assert.equal(events[0]?.type, 'message'),
  },
  telephony: {
    unknownCallSid: 'CA' + '0'.repeat(32),
    call: () => ({ from: NUMBERS[0]!, to: CUSTOMER, answerUrl: `${hooks.url}/webhooks/agent-1/voice`, statusCallbackUrl: `${hooks.url}/webhooks/agent-1/voice-status`, timeoutSeconds: 20 }),
    callWebhook: () =>
      signedVoiceForm(sim.credentials.twilio.authToken, `${hooks.url}/webhooks/agent-1/voice-status`, {
        AccountSid: sim.credentials.twilio.accountSid,
        CallSid: 'CA' + 'c'.repeat(32),
        CallStatus: 'completed',
        CallDuration: '42',
        From: NUMBERS[0]!,
        To: CUSTOMER,
        Direction: 'outbound-api',
      }),
    malformedCallWebhook: () => signedVoiceForm(sim.credentials.twilio.authToken, `${hooks.url}/webhooks/agent-1/voice`, { AccountSid: sim.credentials.twilio.accountSid, CallStatus: 'ringing' }),
    expectCallStatus: (event) => assert.deepEqual([event.status, event.durationSeconds, event.direction], ['completed', 42, 'outbound']),
    recordingWebhook: () => hooks.capture('voice', '/webhooks/voice/recording', (url) => sim.inbound.recordingStatus({ url, seconds: 4 })),
    malformedRecordingWebhook: () =>
      signedVoiceForm(sim.credentials.twilio.authToken, `${hooks.url}/webhooks/voice/recording`, {
        AccountSid: sim.credentials.twilio.accountSid,
        CallSid: 'CA' + 'c'.repeat(32),
        RecordingStatus: 'completed',
      }),
  },
  skip: { 'an expired signature is rejected': 'Twilio signs no timestamp, so its signatures cannot expire' },
});

describe('twilio driver against the simulator', () => {
  let s: Simulator;
  let receiver: WebhookReceiver;
  let d: Driver;

  before(async () => {
    s = await startSimulator({ phoneNumbers: NUMBERS, statusCallbackDelayMs: 5 });
    receiver = await startWebhookReceiver();
    d = await driver.create(settingsOf(s), context);
  });
  after(async () => {
    await d.close?.();
    await receiver.close();
    await s.close();
  });

  it('sends an SMS: the simulator records to, from and body; the result carries the sid and segments', async () => {
    const body = 'x'.repeat(200);
    const result = await d.send!({ channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body });
    const [sent] = s.messages({ provider: 'twilio', to: CUSTOMER }).filter((m) => m.id === result.externalId);
    assert.ok(sent, 'the simulator recorded the message');
    assert.equal(sent.channel, 'sms');
    assert.equal(sent.from, NUMBERS[0]);
    assert.equal(sent.body, body);
    assert.equal(result.status, 'queued');
    assert.equal(result.cost, null);
    assert.equal(result.segments, 2);
  });

  it('adds the whatsapp: prefix to both addresses, once', async () => {
    const result = await d.send!({ channel: 'whatsapp', from: NUMBERS[1]!, to: `whatsapp:${CUSTOMER}`, body: 'hola' });
    const sent = s.messages({ provider: 'twilio', channel: 'whatsapp' }).find((m) => m.id === result.externalId);
    assert.equal(sent?.to, `whatsapp:${CUSTOMER}`);
    assert.equal(sent?.from, `whatsapp:${NUMBERS[1]}`);
  });

  it('passes the status callback URL, and parses the callbacks that follow, with a positive price', async () => {
    const statusCallbackUrl = `${receiver.url}/webhooks/agent-1/sms-status`;
    const result = await d.send!({ channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body: 'track me', statusCallbackUrl });
    assert.equal(s.messages().find((m) => m.id === result.externalId)?.statusCallback, statusCallbackUrl);
    const sentCallback = await receiver.next('sms', '/webhooks/agent-1/sms-status');
    const deliveredCallback = await receiver.next('sms', '/webhooks/agent-1/sms-status');
    await d.webhooks!.verify(sentCallback);
    await d.webhooks!.verify(deliveredCallback);
    assert.deepEqual(await d.webhooks!.parse(sentCallback), [
      { type: 'status', channel: 'sms', externalId: result.externalId, status: 'sent', cost: null, eventId: `${result.externalId}:sent` },
    ]);
    const [delivered] = await d.webhooks!.parse(deliveredCallback);
    assert.equal(delivered?.type, 'status');
    assert.equal(delivered.type === 'status' && delivered.status, 'delivered');
    assert.equal(delivered.type === 'status' && delivered.cost, 0.0079);
  });

  it('parses a failed status callback with its error code', async () => {
    const request = await receiver.capture('whatsapp', '/webhooks/agent-1/whatsapp', (url) =>
      s.inbound.messageStatus({ url, messageSid: 'SM' + 'a'.repeat(32), status: 'undelivered', errorCode: '63016', channel: 'whatsapp', price: '-0.00500' }),
    );
    await d.webhooks!.verify(request);
    assert.deepEqual(await d.webhooks!.parse(request), [
      { type: 'status', channel: 'whatsapp', externalId: 'SM' + 'a'.repeat(32), status: 'undelivered', cost: 0.005, errorCode: '63016', eventId: `SM${'a'.repeat(32)}:undelivered` },
    ]);
  });

  it('parses an inbound WhatsApp message: prefixes stripped, media URLs in order', async () => {
    const mediaUrls = ['https://media.example.com/a.jpg', 'https://media.example.com/b.png'];
    const request = await receiver.capture('whatsapp', '/webhooks/agent-1/whatsapp', (url) =>
      s.inbound.whatsapp({ url, from: CUSTOMER, to: NUMBERS[1]!, body: 'look', mediaUrls, messageSid: 'SM' + 'b'.repeat(32) }),
    );
    await d.webhooks!.verify(request);
    const [event] = await d.webhooks!.parse(request);
    assert.equal(event?.type, 'message');
    assert.ok(event.type === 'message');
    assert.equal(event.channel, 'whatsapp');
    assert.equal(event.externalId, 'SM' + 'b'.repeat(32));
    assert.equal(event.from, CUSTOMER);
    assert.equal(event.to, NUMBERS[1]);
    assert.equal(event.body, 'look');
    assert.deepEqual(event.mediaUrls, mediaUrls);
  });

  it('reads the signature from X-Telephony-Signature too, and checks it against the public URL', async () => {
    const request = await receiver.capture('sms', '/webhooks/agent-1/sms?x=1', (url) => s.inbound.sms({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'q' }));
    const { 'x-twilio-signature': signature, ...rest } = request.headers;
    await d.webhooks!.verify({ ...request, headers: { ...rest, 'x-telephony-signature': signature! } });
    await assert.rejects(async () => d.webhooks!.verify({ ...request, url: request.url.replace('x=1', 'x=2') }), { code: 'SIGNATURE_INVALID' });
  });

  it('acknowledges with empty TwiML built by the SDK', () => {
    const ack = d.webhooks!.acknowledge('sms');
    assert.equal(ack.contentType, 'text/xml');
    assert.match(ack.body, /<Response\/>$/);
  });

  it('estimates cost from the default tariff', () => {
    assert.equal(d.estimateCost!({ channel: 'sms', from: '', to: '', body: '' }, 3), 0.0249);
    assert.equal(d.estimateCost!({ channel: 'whatsapp', from: '', to: '', body: '' }, 1), 0.005);
  });

  it('maps a network failure to a retryable PROVIDER_ERROR', async () => {
    const offline = await driver.create({ ...settingsOf(s), baseUrl: 'http://127.0.0.1:1' }, context);
    await assert.rejects(offline.send!({ channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body: 'x' }), { code: 'PROVIDER_ERROR', retryable: true });
  });
});

describe('countSegments', () => {
  it('counts GSM-7 bodies in 160/153 septets, extension characters as two', () => {
    assert.deepEqual(countSegments(''), { encoding: 'GSM-7', segments: 1, units: 0 });
    assert.equal(countSegments('a'.repeat(160)).segments, 1);
    assert.equal(countSegments('a'.repeat(161)).segments, 2);
    assert.equal(countSegments('a'.repeat(306)).segments, 2);
    assert.equal(countSegments('a'.repeat(307)).segments, 3);
    assert.deepEqual(countSegments('€'.repeat(80)), { encoding: 'GSM-7', segments: 1, units: 160 });
    // An escape pair is never split: 152 septets + '€' do not fit in 153.
    assert.equal(countSegments('a'.repeat(152) + '€' + 'a'.repeat(10)).segments, 2);
    assert.equal(countSegments('a'.repeat(152) + '€').segments, 1);
  });

  it('counts anything else as UCS-2 in 70/67 code units', () => {
    assert.deepEqual(countSegments('héllo ✓'), { encoding: 'UCS-2', segments: 1, units: 7 });
    assert.equal(countSegments('✓'.repeat(70)).segments, 1);
    assert.equal(countSegments('✓'.repeat(71)).segments, 2);
    assert.equal(countSegments('😀'.repeat(35)).segments, 1);
    assert.equal(countSegments('😀'.repeat(36)).segments, 2);
  });
});
