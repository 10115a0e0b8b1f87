import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import type { Driver } from '@switchboard/sdk';
import { startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import driver, { type TelnyxSettings } from '../src/index.js';

const NUMBERS = ['+15005550006', '+15005550007'];
const CUSTOMER = '+14155550123';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };
const settingsOf = (s: Simulator): TelnyxSettings => ({ apiKey: s.credentials.telnyx.apiKey, publicKey: s.credentials.telnyx.publicKey, baseUrl: s.baseUrls.telnyx });

describe('telnyx driver against the simulator', () => {
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

  it('sends an SMS with the API key as Bearer: the simulator records it; the result carries the id and parts', async () => {
    const body = 'x'.repeat(200);
    const result = await d.send!({ channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body });
    assert.match(result.externalId, UUID);
    const sent = s.messages({ provider: 'telnyx' }).find((m) => m.id === result.externalId);
    assert.deepEqual([sent?.channel, sent?.from, sent?.to, sent?.body], ['sms', NUMBERS[0], CUSTOMER, body]);
    assert.deepEqual([result.status, result.cost, result.segments], ['queued', null, 2]);
    const request = s.requests('telnyx').find((r) => r.method === 'POST' && r.path === '/telnyx/v2/messages');
    assert.equal(request?.headers.authorization, `Bearer ${s.credentials.telnyx.apiKey}`);
  });

  it('sends an MMS: media URLs and subject go to Telnyx as media_urls and type MMS', async () => {
    const mediaUrls = ['https://media.example.com/a.jpg', 'https://media.example.com/b.png'];
    const result = await d.send!({ channel: 'sms', from: NUMBERS[1]!, to: CUSTOMER, body: 'look', subject: 'Photos', mediaUrls });
    const sent = s.messages({ provider: 'telnyx' }).find((m) => m.id === result.externalId);
    assert.deepEqual(sent?.mediaUrls, mediaUrls);
    const request = s.requests('telnyx').filter((r) => r.path === '/telnyx/v2/messages').at(-1);
    assert.deepEqual(request?.body, { to: CUSTOMER, from: NUMBERS[1], text: 'look', media_urls: mediaUrls, type: 'MMS', subject: 'Photos' });
    assert.equal(result.segments, 1);
  });

  it('passes the status URL as webhook_url, then verifies and parses message.sent and message.finalized', async () => {
    const statusCallbackUrl = `${receiver.url}/webhooks/agent-1/sms-status`;
    const result = await d.send!({ channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body: 'track me', statusCallbackUrl });
    assert.equal(s.messages().find((m) => m.id === result.externalId)?.statusCallback, statusCallbackUrl);
    const sentHook = await receiver.next('sms', '/webhooks/agent-1/sms-status');
    const finalHook = await receiver.next('sms', '/webhooks/agent-1/sms-status');
    assert.ok(sentHook.headers['telnyx-signature-ed25519'] && sentHook.headers['telnyx-timestamp'], 'Telnyx signs with both headers');
    await d.webhooks!.verify(sentHook);
    await d.webhooks!.verify(finalHook);
    const [sent] = await d.webhooks!.parse(sentHook);
    const [finalized] = await d.webhooks!.parse(finalHook);
    const eventIdOf = (raw: Buffer) => (JSON.parse(raw.toString()) as { data: { id: string } }).data.id;
    assert.deepEqual(sent, { type: 'status', channel: 'sms', externalId: result.externalId, status: 'sent', cost: null, eventId: eventIdOf(sentHook.rawBody) });
    assert.deepEqual(finalized, { type: 'status', channel: 'sms', externalId: result.externalId, status: 'delivered', cost: 0.004, eventId: eventIdOf(finalHook.rawBody) });
    const fetched = await d.fetchStatus!({ channel: 'sms', externalId: result.externalId, from: NUMBERS[0]!, to: CUSTOMER, sentAt: new Date() });
    assert.deepEqual(fetched, { type: 'status', channel: 'sms', externalId: result.externalId, status: 'delivered', cost: 0.004 });
  });

  it('with Telnyx silent, fetchStatus tells what no event did: an undelivered message and its error code', async () => {
    s.silence('telnyx', 'undelivered');
    try {
      const statusCallbackUrl = `${receiver.url}/webhooks/agent-1/silent-status`;
      const result = await d.send!({ channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body: 'into the void', statusCallbackUrl });
      const ref = { channel: 'sms' as const, externalId: result.externalId, from: NUMBERS[0]!, to: CUSTOMER, sentAt: new Date() };
      // The outcome comes two simulator delays (5 ms) after the send; asked for up to 10 s on a loaded machine.
      let fetched = await d.fetchStatus!(ref);
      for (let i = 0; i < 500 && fetched?.status !== 'undelivered'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        fetched = await d.fetchStatus!(ref);
      }
      assert.equal(fetched?.status, 'undelivered');
      assert.deepEqual([fetched?.errorCode, fetched?.cost], ['40300', 0.004]);
      assert.equal(receiver.received.filter((r) => r.path.startsWith('/webhooks/agent-1/silent-status')).length, 0, 'no event was posted');
    } finally {
      s.silence('telnyx', undefined);
    }
  });

  it('parses a failed delivery with its error code', async () => {
    const messageId = '11111111-2222-4333-8444-555555555555';
    const request = await receiver.capture('sms', '/webhooks/agent-1/sms', (url) => s.inbound.telnyxStatus({ url, messageId, status: 'delivery_failed', errorCode: '40008' }));
    await d.webhooks!.verify(request);
    const [event] = await d.webhooks!.parse(request);
    assert.equal(event?.type, 'status');
    assert.ok(event.type === 'status');
    assert.deepEqual([event.externalId, event.status, event.errorCode], [messageId, 'undelivered', '40008']);
  });

  it('parses an inbound MMS: addresses, text and media URLs in order', async () => {
    const mediaUrls = ['https://media.example.com/c.jpg', 'https://media.example.com/d.gif'];
    const request = await receiver.capture('sms', '/webhooks/agent-1/sms', (url) => s.inbound.telnyxSms({ url, from: CUSTOMER, to: NUMBERS[1]!, body: 'see', mediaUrls }));
    await d.webhooks!.verify(request);
    const [event] = await d.webhooks!.parse(request);
    assert.ok(event?.type === 'message');
    assert.deepEqual([event.channel, event.from, event.to, event.body, event.mediaUrls], ['sms', CUSTOMER, NUMBERS[1], 'see', mediaUrls]);
    assert.match(event.externalId, UUID);
  });

  it('refuses a webhook signed by another key pair, and one whose timestamp header was changed', async () => {
    const other = await startSimulator({ phoneNumbers: NUMBERS });
    try {
      const foreign = await receiver.capture('sms', '/webhooks/agent-1/sms', (url) => other.inbound.telnyxSms({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'spoof' }));
      await assert.rejects(async () => d.webhooks!.verify(foreign), { code: 'SIGNATURE_INVALID' });
    } finally {
      await other.close();
    }
    const request = await receiver.capture('sms', '/webhooks/agent-1/sms', (url) => s.inbound.telnyxSms({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'x' }));
    const shifted = String(Number(request.headers['telnyx-timestamp']) - 1);
    await assert.rejects(async () => d.webhooks!.verify({ ...request, headers: { ...request.headers, 'telnyx-timestamp': shifted } }), { code: 'SIGNATURE_INVALID' });
  });

  it('takes JSON webhooks and ignores event types it does not handle', async () => {
    assert.deepEqual(d.webhooks!.contentTypes, ['application/json']);
    const rawBody = Buffer.from(JSON.stringify({ data: { event_type: 'message.link_click', id: 'e1', payload: { id: 'm1' } } }));
    assert.deepEqual(await d.webhooks!.parse({ channel: 'sms', method: 'POST', url: 'http://x/', headers: {}, rawBody }), []);
  });

  it('maps a refused sender to a non-retryable PROVIDER_ERROR, and a network failure to a retryable one', async () => {
    await assert.rejects(d.send!({ channel: 'sms', from: '+15550000000', to: CUSTOMER, body: 'x' }), (err: { code?: string; retryable?: boolean; message?: string }) => {
      assert.equal(err.code, 'PROVIDER_ERROR');
      assert.equal(err.retryable, false);
      assert.match(err.message ?? '', /HTTP 400/);
      return true;
    });
    const offline = await driver.create({ ...settingsOf(s), baseUrl: 'http://127.0.0.1:1' }, context);
    await assert.rejects(offline.send!({ channel: 'sms', from: NUMBERS[0]!, to: CUSTOMER, body: 'x' }), { code: 'PROVIDER_ERROR', retryable: true });
  });

  it('estimates cost from the default tariff: per part for SMS, per message for MMS', () => {
    assert.equal(d.estimateCost!({ channel: 'sms', from: '', to: '', body: '' }, 3), 0.012);
    assert.equal(d.estimateCost!({ channel: 'sms', from: '', to: '', body: '', mediaUrls: ['https://m/a.jpg'] }, 1), 0.015);
  });
});
