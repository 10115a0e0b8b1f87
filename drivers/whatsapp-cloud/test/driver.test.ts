import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import type { Driver, WebhookRequest } from '@switchboard/sdk';
import { startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import driver, { answerHandshake, templateComponents, type WhatsAppCloudSettings } from '../src/index.js';

const NUMBERS = ['+15005550006', '+15005550007'];
const CUSTOMER = '+14155550123';
const STRANGER = '+14155550999';
const PATH = '/webhooks/agent-1/whatsapp';
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };
const settingsOf = (s: Simulator): WhatsAppCloudSettings => {
  const c = s.credentials.whatsappCloud;
  return { accessToken: c.accessToken, appSecret: c.appSecret, phoneNumberId: c.phoneNumberId, wabaId: c.wabaId, verifyToken: c.verifyToken, baseUrl: s.baseUrls.whatsappCloud };
};

/** A request carrying `body`, signed under `secret` as Meta signs. */
function signed(secret: string, body: unknown): WebhookRequest {
  const rawBody = Buffer.from(JSON.stringify(body));
  return { channel: 'whatsapp', method: 'POST', url: `http://127.0.0.1${PATH}`, headers: { 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}` }, rawBody };
}

const notification = (value: Record<string, unknown>) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: '1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15005550006', phone_number_id: '1' }, ...value } }] }],
});

describe('whatsapp-cloud driver against the simulator', () => {
  let s: Simulator;
  let receiver: WebhookReceiver;
  let d: Driver;

  before(async () => {
    s = await startSimulator({ phoneNumbers: NUMBERS, statusCallbackDelayMs: 5 });
    receiver = await startWebhookReceiver();
    s.whatsappCloud.subscribe(`${receiver.url}${PATH}`);
    d = await driver.create(settingsOf(s), context);
  });
  after(async () => {
    await d.close?.();
    await receiver.close();
    await s.close();
  });

  it('sends a text with the token as Bearer to /{phone-number-id}/messages; statuses come signed and parse as receipts', async () => {
    await receiver.capture('whatsapp', PATH, (url) => s.inbound.whatsappCloud({ url, from: CUSTOMER, to: NUMBERS[0]!, body: 'hello?' }));
    const result = await d.send!({ channel: 'whatsapp', from: NUMBERS[0]!, to: CUSTOMER, body: 'Hello there' });
    assert.match(result.externalId, /^wamid\./);
    assert.deepEqual([result.status, result.cost, result.segments], ['accepted', null, 1]);
    const request = s.requests('whatsapp-cloud').find((r) => r.method === 'POST' && r.path.endsWith('/messages'));
    assert.equal(request?.path, `/whatsapp-cloud/v23.0/${s.credentials.whatsappCloud.phoneNumberId}/messages`);
    assert.equal(request?.headers.authorization, `Bearer ${s.credentials.whatsappCloud.accessToken}`);
    assert.deepEqual(request?.body, { messaging_product: 'whatsapp', recipient_type: 'individual', to: '14155550123', type: 'text', text: { preview_url: false, body: 'Hello there' } });
    const sent = s.messages({ provider: 'whatsapp-cloud' }).find((m) => m.id === result.externalId);
    assert.deepEqual([sent?.channel, sent?.from, sent?.to, sent?.body], ['whatsapp', NUMBERS[0], CUSTOMER, 'Hello there']);

    const statuses = [];
    for (const _ of [1, 2]) {
      const hook = await receiver.next('whatsapp', PATH);
      await d.webhooks!.verify(hook);
      statuses.push(...(await d.webhooks!.parse(hook)));
    }
    assert.deepEqual(statuses, [
      { type: 'status', channel: 'whatsapp', externalId: result.externalId, status: 'sent', cost: null, eventId: `${result.externalId}/sent` },
      { type: 'status', channel: 'whatsapp', externalId: result.externalId, status: 'delivered', cost: null, eventId: `${result.externalId}/delivered` },
    ]);
  });

  it('sends a template by name and language as components with body parameters; the simulator renders it', async () => {
    const result = await d.send!({ channel: 'whatsapp', from: NUMBERS[0]!, to: STRANGER, body: '', template: { name: 'appointment_reminder', language: 'en', variables: { 2: 'Friday at 9:00', 1: 'Sam' } } });
    const request = s.requests('whatsapp-cloud').filter((r) => r.path.endsWith('/messages')).at(-1);
    assert.deepEqual((request?.body as { template: unknown }).template, {
      name: 'appointment_reminder',
      language: { code: 'en' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Sam' }, { type: 'text', text: 'Friday at 9:00' }] }],
    });
    const sent = s.messages({ provider: 'whatsapp-cloud' }).find((m) => m.id === result.externalId);
    assert.equal(sent?.body, 'Hello Sam, this is a reminder of your appointment on Friday at 9:00. Reply here to confirm or change it.');
    assert.deepEqual(sent?.template, { name: 'appointment_reminder', language: 'en', variables: { 1: 'Sam', 2: 'Friday at 9:00' } });
    const [sentStatus] = await d.webhooks!.parse(await receiver.next('whatsapp', PATH));
    assert.equal(sentStatus?.type === 'status' && sentStatus.status, 'sent');
    await receiver.next('whatsapp', PATH);
  });

  it('finds the language of a template named without one among the approved templates', async () => {
    const result = await d.send!({ channel: 'whatsapp', from: NUMBERS[0]!, to: STRANGER, body: '', template: { name: 'order_update', variables: { 1: '#7', 2: 'today' } } });
    assert.equal(s.messages({ provider: 'whatsapp-cloud' }).find((m) => m.id === result.externalId)?.template?.language, 'en');
    await assert.rejects(d.send!({ channel: 'whatsapp', from: NUMBERS[0]!, to: STRANGER, body: '', template: { name: 'spring_offer' } }), { code: 'VALIDATION_FAILED' });
    await receiver.next('whatsapp', PATH);
    await receiver.next('whatsapp', PATH);
  });

  it('a free-form message to someone who never wrote is accepted, then fails with 131047 as Meta reports it', async () => {
    const result = await d.send!({ channel: 'whatsapp', from: NUMBERS[0]!, to: STRANGER, body: 'Out of the blue' });
    const [failed] = await d.webhooks!.parse(await receiver.next('whatsapp', PATH));
    assert.deepEqual(failed, { type: 'status', channel: 'whatsapp', externalId: result.externalId, status: 'failed', cost: null, errorCode: '131047', eventId: `${result.externalId}/failed` });
  });

  it('lists the templates with their status in lower case, body and sample values', async () => {
    const templates = await d.templates!.list('whatsapp');
    assert.deepEqual(templates.map((t) => [t.name, t.language, t.status, t.category]), [
      ['appointment_reminder', 'en', 'approved', 'UTILITY'],
      ['order_update', 'en', 'approved', 'UTILITY'],
      ['spring_offer', 'en', 'pending', 'MARKETING'],
    ]);
    assert.deepEqual(templates[0]?.variables, { 1: 'Alex', 2: 'Monday at 10:00' });
    assert.match(templates[0]?.body ?? '', /\{\{1\}\}/);
    assert.match(templates[0]?.id ?? '', /^[0-9]+$/);
  });

  it('a wrong token is a non-retryable PROVIDER_ERROR naming code 190; an unreachable API a retryable one that was not accepted', async () => {
    const wrong = await driver.create({ ...settingsOf(s), accessToken: 'EAAwrong' }, context);
    await assert.rejects(wrong.send!({ channel: 'whatsapp', from: NUMBERS[0]!, to: CUSTOMER, body: 'x' }), (err: { code?: string; retryable?: boolean; notAccepted?: boolean; message?: string }) => {
      assert.deepEqual([err.code, err.retryable, err.notAccepted], ['PROVIDER_ERROR', false, true]);
      assert.match(err.message ?? '', /HTTP 401/);
      assert.match(err.message ?? '', /code 190/);
      return true;
    });
    // A port that was just free (fetch refuses port 1 itself, before any connection).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const offline = await driver.create({ ...settingsOf(s), baseUrl: `http://127.0.0.1:${port}` }, context);
    await assert.rejects(offline.send!({ channel: 'whatsapp', from: NUMBERS[0]!, to: CUSTOMER, body: 'x' }), { code: 'PROVIDER_ERROR', retryable: true, notAccepted: true });
    assert.equal((await offline.health!()).ok, false);
  });

  it('sets the number callback through the Graph API after the GET handshake, which the driver answers', async () => {
    const hooked = await startWebhookReceiver();
    try {
      const res = await fetch(`${s.baseUrls.whatsappCloud}/v23.0/${s.credentials.whatsappCloud.phoneNumberId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.credentials.whatsappCloud.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ webhook_configuration: { override_callback_uri: `${hooked.url}/hook`, verify_token: 'anything' } }),
      });
      assert.equal(res.status, 400, 'a receiver that does not echo the challenge fails the check');
      const check = hooked.received[0];
      assert.equal(check?.method, 'GET');
      const query = new URL(check!.url).searchParams;
      assert.deepEqual([query.get('hub.mode'), query.get('hub.verify_token')], ['subscribe', 'anything']);
      const request: WebhookRequest = { channel: 'whatsapp', method: 'GET', url: check!.url.replace('anything', s.credentials.whatsappCloud.verifyToken), headers: {}, rawBody: Buffer.alloc(0) };
      assert.deepEqual(d.webhooks!.handshake!(request), { status: 200, contentType: 'text/plain', body: query.get('hub.challenge') });
      assert.equal(d.webhooks!.handshake!({ ...request, url: check!.url })?.status, 403, 'a wrong verify token is refused');
    } finally {
      await hooked.close();
    }
  });
});

describe('whatsapp-cloud webhooks', () => {
  const SECRET = 'app-secret';
  let d: Driver;
  before(async () => {
    d = await driver.create({ accessToken: 'EAA1', appSecret: SECRET, phoneNumberId: '123', verifyToken: 'vt' }, context);
  });
  const inbound = notification({ contacts: [{ profile: { name: 'Ann' }, wa_id: '14155550123' }], messages: [{ from: '14155550123', id: 'wamid.A', timestamp: '1764300000', type: 'text', text: { body: 'hi there' } }] });

  it('verifies the HMAC of the exact bytes; a tampered body, a missing header, another secret are SIGNATURE_INVALID', async () => {
    const request = signed(SECRET, inbound);
    await d.webhooks!.verify(request);
    await d.webhooks!.verify({ ...request, headers: { 'x-hub-signature-256': request.headers['x-hub-signature-256']!.toUpperCase().replace('SHA256=', 'sha256=') } });
    const tampered = { ...request, rawBody: Buffer.from(request.rawBody.toString().replace('hi there', 'hi thera')) };
    await assert.rejects(async () => d.webhooks!.verify(tampered), { code: 'SIGNATURE_INVALID' });
    await assert.rejects(async () => d.webhooks!.verify({ ...request, headers: {} }), { code: 'SIGNATURE_INVALID' });
    await assert.rejects(async () => d.webhooks!.verify(signed('another', inbound)), { code: 'SIGNATURE_INVALID' });
    await assert.rejects(async () => d.webhooks!.verify({ ...request, headers: { 'x-hub-signature-256': 'sha256=' } }), { code: 'SIGNATURE_INVALID' });
  });

  it('parses a message into E.164 addresses with its time, and statuses (read, failed with its code) from one batch', async () => {
    const [message] = await d.webhooks!.parse(signed(SECRET, inbound));
    assert.deepEqual(message, { type: 'message', channel: 'whatsapp', externalId: 'wamid.A', from: '+14155550123', to: '+15005550006', body: 'hi there', mediaUrls: [], receivedAt: new Date(1764300000_000).toISOString() });
    const batch = {
      object: 'whatsapp_business_account',
      entry: [
        { id: '1', changes: [{ field: 'messages', value: { metadata: { display_phone_number: '15005550006' }, statuses: [{ id: 'wamid.B', status: 'read', timestamp: '1', recipient_id: '1' }] } }] },
        { id: '1', changes: [{ field: 'messages', value: { metadata: { display_phone_number: '15005550006' }, statuses: [{ id: 'wamid.C', status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] }, { id: 'wamid.D', status: 'deleted' }] } }] },
        { id: '1', changes: [{ field: 'message_template_status_update', value: { event: 'APPROVED' } }] },
      ],
    };
    assert.deepEqual(await d.webhooks!.parse(signed(SECRET, batch)), [
      { type: 'status', channel: 'whatsapp', externalId: 'wamid.B', status: 'read', cost: null, eventId: 'wamid.B/read' },
      { type: 'status', channel: 'whatsapp', externalId: 'wamid.C', status: 'failed', cost: null, errorCode: '131026', eventId: 'wamid.C/failed' },
    ]);
  });

  it('reads button replies and captions as the text; refuses bodies that are not a WABA notification', async () => {
    const button = notification({ messages: [{ from: '1415', id: 'wamid.E', type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: 'y', title: 'Yes' } } }] });
    assert.equal(((await d.webhooks!.parse(signed(SECRET, button)))[0] as { body: string }).body, 'Yes');
    const image = notification({ messages: [{ from: '1415', id: 'wamid.F', type: 'image', image: { id: 'media-1', caption: 'look' } }] });
    assert.equal(((await d.webhooks!.parse(signed(SECRET, image)))[0] as { body: string }).body, 'look');
    for (const body of [{ object: 'page', entry: [] }, { object: 'whatsapp_business_account' }, notification({ messages: [{ from: '1415', type: 'text' }] }), notification({ statuses: [{ status: 'sent' }] })]) {
      await assert.rejects(async () => d.webhooks!.parse(signed(SECRET, body)), { code: 'MALFORMED_PAYLOAD' }, JSON.stringify(body));
    }
    await assert.rejects(async () => d.webhooks!.parse({ ...signed(SECRET, {}), rawBody: Buffer.from('not json') }), { code: 'MALFORMED_PAYLOAD' });
    assert.deepEqual(d.webhooks!.acknowledge('whatsapp'), { contentType: 'text/plain', body: '' });
    assert.deepEqual(d.webhooks!.contentTypes, ['application/json']);
  });

  it('answers the handshake only to the configured token; without one configured, every check is refused', () => {
    const get = (query: string): WebhookRequest => ({ channel: 'whatsapp', method: 'GET', url: `http://127.0.0.1${PATH}?${query}`, headers: {}, rawBody: Buffer.alloc(0) });
    assert.deepEqual(answerHandshake('vt', get('hub.mode=subscribe&hub.verify_token=vt&hub.challenge=1158201444')), { status: 200, contentType: 'text/plain', body: '1158201444' });
    assert.equal(answerHandshake('vt', get('hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1'))?.status, 403);
    assert.equal(answerHandshake('vt', get('hub.mode=unsubscribe&hub.verify_token=vt&hub.challenge=1'))?.status, 403);
    assert.equal(answerHandshake(undefined, get('hub.mode=subscribe&hub.verify_token=&hub.challenge=1'))?.status, 403);
    assert.equal(answerHandshake('vt', get('other=1')), undefined);
    assert.equal(answerHandshake('vt', { ...get('hub.mode=subscribe&hub.verify_token=vt&hub.challenge=1'), method: 'POST' }), undefined);
  });

  it('turns numeric variables into positional body parameters in order, other names into named ones', () => {
    assert.deepEqual(templateComponents(undefined), []);
    assert.deepEqual(templateComponents({ 10: 'j', 2: 'b', 1: 'a', first_name: 'Sam' }), [
      { type: 'body', parameters: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }, { type: 'text', text: 'j' }, { type: 'text', parameter_name: 'first_name', text: 'Sam' }] },
    ]);
  });
});
