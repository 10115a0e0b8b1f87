import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import type { CallStep, Driver, WebhookRequest } from '@switchboard/sdk';
import { assertWellFormedXml } from '@switchboard/sdk/testing';
import twilio from 'twilio';
import driver, { STATUS_CALLBACK_EVENTS, type TwilioSettings } from '../src/index.js';

const NUMBERS = ['+15005550006', '+15005550007'];
const CUSTOMER = '+14155550123';
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };
const settingsOf = (s: Simulator): TwilioSettings => ({ ...s.credentials.twilio, baseUrl: s.baseUrls.twilio });

/** A voice webhook signed like Twilio signs it: form params for POST, the URL alone for GET. */
function signedVoiceWebhook(authToken: string, method: 'POST' | 'GET', url: string, params: Record<string, string> = {}): WebhookRequest {
  const signature = twilio.getExpectedTwilioSignature(authToken, url, method === 'GET' ? {} : params);
  return {
    channel: 'voice',
    method,
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    rawBody: Buffer.from(method === 'GET' ? '' : new URLSearchParams(params).toString()),
  };
}

describe('twilio voice against the simulator', () => {
  let s: Simulator;
  let d: Driver;
  const answerUrl = 'http://127.0.0.1:9/webhooks/agent-1/voice';
  const statusCallbackUrl = 'http://127.0.0.1:9/webhooks/agent-1/voice-status';

  before(async () => {
    // The simulated phone stays silent: these tests drive the calls themselves.
    s = await startSimulator({ phoneNumbers: NUMBERS, statusCallbacks: false, phone: { answerOutbound: false } });
    d = await driver.create(settingsOf(s), context);
  });
  after(async () => {
    await d.close?.();
    await s.close();
  });

  it('declares the voice channel', () => {
    assert.deepEqual(driver.manifest.channels, ['sms', 'whatsapp', 'voice']);
  });

  it('places a call: the simulator records the answer URL, status callback and its events, and the timeout', async () => {
    const placed = await d.telephony!.placeCall({ from: NUMBERS[0]!, to: CUSTOMER, answerUrl, statusCallbackUrl, timeoutSeconds: 25 });
    assert.match(placed.callSid, /^CA[0-9a-f]{32}$/);
    assert.equal(placed.status, 'queued');
    const call = s.calls().find((c) => c.sid === placed.callSid);
    assert.ok(call, 'the simulator recorded the call');
    assert.deepEqual(
      { from: call.from, to: call.to, url: call.url, method: call.method, statusCallback: call.statusCallback, statusCallbackMethod: call.statusCallbackMethod },
      { from: NUMBERS[0], to: CUSTOMER, url: answerUrl, method: 'POST', statusCallback: statusCallbackUrl, statusCallbackMethod: 'POST' },
    );
    assert.deepEqual(call.statusCallbackEvents, STATUS_CALLBACK_EVENTS);
    assert.equal(call.params['Timeout'], '25');
  });

  it('updates a live call with TwiML, then hangs it up with Status=completed', async () => {
    const { callSid } = await d.telephony!.placeCall({ from: NUMBERS[0]!, to: CUSTOMER, answerUrl, statusCallbackUrl });
    const transfer: CallStep[] = [
      { kind: 'say', text: 'Transferring you to a person' },
      { kind: 'dial', number: '+14155550199', callerId: NUMBERS[0]! },
    ];
    await d.telephony!.updateCall(callSid, transfer);
    const call = s.calls().find((c) => c.sid === callSid)!;
    assert.equal(call.updates.length, 1);
    assert.equal(call.updates[0]!.twiml, d.telephony!.render(transfer).body);
    assert.equal(call.twiml, d.telephony!.render(transfer).body);

    await d.telephony!.updateCall(callSid, [{ kind: 'hangup' }]);
    assert.equal(call.updates[1]!.status, 'completed');
    assert.equal(call.status, 'completed');
    assert.equal(call.updates[1]!.twiml, undefined);
  });

  it('maps Twilio refusals to coded errors: an ended call cannot be redirected, an unknown call is a 404', async () => {
    const { callSid } = await d.telephony!.placeCall({ from: NUMBERS[0]!, to: CUSTOMER, answerUrl, statusCallbackUrl });
    await d.telephony!.updateCall(callSid, [{ kind: 'hangup' }]);
    await assert.rejects(d.telephony!.updateCall(callSid, [{ kind: 'say', text: 'too late' }]), { code: 'PROVIDER_ERROR', retryable: false });
    await assert.rejects(d.telephony!.updateCall('CA' + '0'.repeat(32), [{ kind: 'hangup' }]), { code: 'PROVIDER_ERROR', retryable: false });
    await assert.rejects(d.telephony!.placeCall({ from: NUMBERS[0]!, to: 'not a number', answerUrl, statusCallbackUrl }), { code: 'PROVIDER_ERROR', retryable: false });
  });

  it('refuses a call sid that is not a Twilio call SID before it reaches a URL path', async () => {
    const before = s.requests('twilio').length;
    for (const sid of ['../Messages/SM' + '0'.repeat(32), 'CA' + '0'.repeat(31), 'CA..', 'SM' + '0'.repeat(32)]) {
      await assert.rejects(d.telephony!.updateCall(sid, [{ kind: 'hangup' }]), { code: 'VALIDATION_FAILED', retryable: false }, sid);
    }
    assert.equal(s.requests('twilio').length, before);
  });

  it('maps a provider 503 on placeCall to a retryable PROVIDER_ERROR', async () => {
    s.faults.add({ provider: 'twilio', pathIncludes: 'Calls.json', status: 503, times: 1 });
    await assert.rejects(d.telephony!.placeCall({ from: NUMBERS[0]!, to: CUSTOMER, answerUrl, statusCallbackUrl }), { code: 'PROVIDER_ERROR', retryable: true });
  });
});

describe('twilio TwiML rendering', () => {
  let d: Driver;
  before(async () => {
    d = await driver.create({ accountSid: 'AC' + '0'.repeat(32), authToken: 'x' }, context);
  });

  const render = (steps: CallStep[]): string => {
    const { contentType, body } = d.telephony!.render(steps);
    assert.equal(contentType, 'text/xml');
    assert.equal(assertWellFormedXml(body), 'Response');
    return body.replace(/^<\?xml[^>]*\?>/, '');
  };

  it('connects a relay call: ConversationRelay with greeting, voice, language and parameters, all escaped', () => {
    const body = render([
      { kind: 'connect', mode: 'relay', url: 'wss://sb.example.com/webhooks/a1/voice-ws?x=1&y=2', greeting: 'Hi, "Ada" & co', voice: 'en-US-Journey-O', language: 'en-US', parameters: { agentId: 'a1', note: '<b>' } },
    ]);
    assert.equal(
      body,
      '<Response><Connect><ConversationRelay url="wss://sb.example.com/webhooks/a1/voice-ws?x=1&amp;y=2" welcomeGreeting="Hi, &quot;Ada&quot; &amp; co" voice="en-US-Journey-O" language="en-US">' +
        '<Parameter name="agentId" value="a1"/><Parameter name="note" value="&lt;b>"/></ConversationRelay></Connect></Response>',
    );
  });

  it('connects a media stream with parameters, and leaves absent attributes out', () => {
    assert.equal(
      render([{ kind: 'connect', mode: 'stream', url: 'wss://sb.example.com/ws', parameters: { agentId: 'a1' } }]),
      '<Response><Connect><Stream url="wss://sb.example.com/ws"><Parameter name="agentId" value="a1"/></Stream></Connect></Response>',
    );
    assert.equal(render([{ kind: 'connect', mode: 'relay', url: 'wss://sb.example.com/ws' }]), '<Response><Connect><ConversationRelay url="wss://sb.example.com/ws"/></Connect></Response>');
  });

  it('renders say, play, pause, dial and hangup in order', () => {
    assert.equal(
      render([
        { kind: 'say', text: 'Please hold <now>', voice: 'Polly.Joanna', language: 'en-US' },
        { kind: 'play', url: 'https://media.example.com/hold.wav' },
        { kind: 'pause', seconds: 2.4 },
        { kind: 'dial', number: '+14155550199', callerId: '+15005550006' },
        { kind: 'dial', number: 'sip:desk@pbx.example.com' },
        { kind: 'dial', number: 'client:alice' },
        { kind: 'hangup' },
      ]),
      '<Response><Say voice="Polly.Joanna" language="en-US">Please hold &lt;now&gt;</Say><Play>https://media.example.com/hold.wav</Play><Pause length="2"/>' +
        '<Dial callerId="+15005550006"><Number>+14155550199</Number></Dial><Dial><Sip>sip:desk@pbx.example.com</Sip></Dial><Dial><Client>alice</Client></Dial><Hangup/></Response>',
    );
  });

  it('renders no steps as an empty Response, and refuses a negative pause or an unknown step', () => {
    assert.equal(render([]), '<Response/>');
    assert.throws(() => d.telephony!.render([{ kind: 'pause', seconds: -1 }]), { code: 'VALIDATION_FAILED' });
    assert.throws(() => d.telephony!.render([{ kind: 'record' } as unknown as CallStep]), { code: 'VALIDATION_FAILED' });
  });
});

describe('twilio voice webhooks', () => {
  const authToken = 'f'.repeat(32);
  const url = 'https://sb.example.com/webhooks/agent-1/voice-status';
  let d: Driver;
  before(async () => {
    d = await driver.create({ accountSid: 'AC' + '0'.repeat(32), authToken }, context);
  });

  it('verifies and parses a completed status callback: duration, positive price, outbound direction', async () => {
    const request = signedVoiceWebhook(authToken, 'POST', url, {
      AccountSid: 'AC' + '0'.repeat(32),
      CallSid: 'CA' + 'a'.repeat(32),
      CallStatus: 'completed',
      CallDuration: '73',
      Duration: '2',
      Price: '-0.02600',
      PriceUnit: 'USD',
      From: '+15005550006',
      To: '+14155550123',
      Direction: 'outbound-api',
      CallbackSource: 'call-progress-events',
      SequenceNumber: '3',
    });
    await d.webhooks!.verify(request);
    assert.deepEqual(d.telephony!.parseCallWebhook(request), {
      type: 'call-status',
      callSid: 'CA' + 'a'.repeat(32),
      status: 'completed',
      durationSeconds: 73,
      cost: 0.026,
      from: '+15005550006',
      to: '+14155550123',
      direction: 'outbound',
    });
  });

  it('parses an incoming call: ringing, inbound, no duration or price yet; initiated counts as queued', async () => {
    const incoming = signedVoiceWebhook(authToken, 'POST', 'https://sb.example.com/webhooks/agent-1/voice', {
      CallSid: 'CA' + 'b'.repeat(32),
      CallStatus: 'ringing',
      From: '+14155550123',
      To: '+15005550006',
      Direction: 'inbound',
    });
    await d.webhooks!.verify(incoming);
    assert.deepEqual(d.telephony!.parseCallWebhook(incoming), {
      type: 'call-status',
      callSid: 'CA' + 'b'.repeat(32),
      status: 'ringing',
      durationSeconds: null,
      cost: null,
      from: '+14155550123',
      to: '+15005550006',
      direction: 'inbound',
    });
    const initiated = signedVoiceWebhook(authToken, 'POST', url, { CallSid: 'CA' + 'c'.repeat(32), CallStatus: 'initiated', Direction: 'outbound-dial' });
    assert.deepEqual([d.telephony!.parseCallWebhook(initiated)?.status, d.telephony!.parseCallWebhook(initiated)?.direction], ['queued', 'outbound']);
  });

  it('reads a GET webhook from its signed query string', async () => {
    const request = signedVoiceWebhook(authToken, 'GET', `${url}?CallSid=CA${'d'.repeat(32)}&CallStatus=busy`);
    await d.webhooks!.verify(request);
    assert.equal(d.telephony!.parseCallWebhook(request)?.status, 'busy');
  });

  it('verifies the voice WebSocket upgrade, which Twilio signs over the wss URL alone', async () => {
    const upgrade = signedVoiceWebhook(authToken, 'GET', 'wss://sb.example.com/webhooks/agent-1/voice-ws?token=abc');
    await d.webhooks!.verify(upgrade);
    await assert.rejects(async () => d.webhooks!.verify({ ...upgrade, url: upgrade.url.replace('abc', 'abd') }), { code: 'SIGNATURE_INVALID' });
  });

  it('rejects tampered and unsigned voice webhooks, bodies without CallSid or CallStatus, and a CallSid that is not a call SID', async () => {
    const request = signedVoiceWebhook(authToken, 'POST', url, { CallSid: 'CA' + 'e'.repeat(32), CallStatus: 'completed' });
    await assert.rejects(async () => d.webhooks!.verify({ ...request, rawBody: Buffer.from(request.rawBody.toString().replace('completed', 'failed')) }), { code: 'SIGNATURE_INVALID' });
    await assert.rejects(async () => d.webhooks!.verify({ ...request, headers: {} }), { code: 'SIGNATURE_INVALID' });
    assert.throws(() => d.telephony!.parseCallWebhook(signedVoiceWebhook(authToken, 'POST', url, { CallStatus: 'completed' })), { code: 'MALFORMED_PAYLOAD' });
    assert.throws(() => d.telephony!.parseCallWebhook(signedVoiceWebhook(authToken, 'POST', url, { CallSid: 'CA' + 'e'.repeat(32) })), { code: 'MALFORMED_PAYLOAD' });
    const traversal = signedVoiceWebhook(authToken, 'POST', url, { CallSid: '../../Accounts', CallStatus: 'completed' });
    await d.webhooks!.verify(traversal);
    assert.throws(() => d.telephony!.parseCallWebhook(traversal), { code: 'MALFORMED_PAYLOAD' });
  });
});
