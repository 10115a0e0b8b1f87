import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validateSignature } from '@line/bot-sdk';
import { Resend } from 'resend';
import { Webhook } from 'svix';
import twilio from 'twilio';
import { startSimulator, type Simulator } from '../src/index.js';
import { formParams, header, startReceiver, twilioClientFor, type ReceivedWebhook, type WebhookReceiver } from './helpers.js';

/** The gateway stand-in verifies each provider's signature the way Switchboard must. */
function verifies(sim: Simulator, w: ReceivedWebhook): boolean {
  const path = new URL(w.url).pathname;
  if (path.endsWith('/sms') || path.endsWith('/whatsapp') || path.includes('/status')) {
    return twilio.validateRequest(sim.credentials.twilio.authToken, header(w.headers, 'x-twilio-signature'), w.url, formParams(w.body));
  }
  if (path.endsWith('/email')) {
    try {
      new Webhook(sim.credentials.resend.webhookSecret).verify(w.body, {
        'svix-id': header(w.headers, 'svix-id'),
        'svix-timestamp': header(w.headers, 'svix-timestamp'),
        'svix-signature': header(w.headers, 'svix-signature'),
      });
      return true;
    } catch {
      return false;
    }
  }
  const signature = header(w.headers, 'x-line-signature');
  return signature !== '' && validateSignature(w.body, sim.credentials.line.channelSecret, signature);
}

describe('inbound webhooks to the gateway', () => {
  let sim: Simulator;
  let gateway: WebhookReceiver;

  before(async () => {
    sim = await startSimulator();
    // Answers like Switchboard: 403 when the signature does not verify.
    gateway = await startReceiver((w) => (verifies(sim, w) ? { status: 200, body: '<Response/>', contentType: 'text/xml' } : { status: 403, body: 'forbidden' }));
    sim.gatewayUrl = gateway.url;
  });
  after(async () => {
    await sim.close();
    await gateway.close();
  });
  /** Last webhook to a path (automatic status callbacks may arrive in between). */
  const lastAt = (prefix: string) => gateway.received.filter((w) => w.path.startsWith(prefix)).at(-1)!;

  it('posts an inbound SMS with Twilio fields, signed over the exact URL', async () => {
    const result = await sim.inbound.sms({ agentId: 'agent-1', from: '+447700900123', to: '+15555550100', body: 'Hi there', mediaUrls: ['https://media.example/p.jpg'] });
    assert.equal(result.status, 200);
    assert.equal(result.body, '<Response/>');
    assert.match(result.id, /^SM[0-9a-f]{32}$/);
    const w = lastAt('/webhooks/agent-1/sms');
    assert.equal(w.path, '/webhooks/agent-1/sms');
    assert.equal(header(w.headers, 'content-type'), 'application/x-www-form-urlencoded');
    const p = formParams(w.body);
    assert.deepEqual(
      [p['MessageSid'], p['SmsSid'], p['SmsMessageSid'], p['From'], p['To'], p['Body'], p['NumMedia'], p['MediaUrl0'], p['MediaContentType0'], p['SmsStatus'], p['FromCountry'], p['ToCountry'], p['NumSegments'], p['ApiVersion'], p['AccountSid']],
      [result.id, result.id, result.id, '+447700900123', '+15555550100', 'Hi there', '1', 'https://media.example/p.jpg', 'image/jpeg', 'received', 'GB', 'US', '1', '2010-04-01', sim.credentials.twilio.accountSid],
    );
  });

  it('posts WhatsApp with whatsapp: addresses, and replays a given MessageSid', async () => {
    const sid = `SM${'7'.repeat(32)}`;
    const result = await sim.inbound.whatsapp({ agentId: 'agent-1', from: '+819012345678', to: '+15555550100', body: 'konnichiwa', messageSid: sid });
    assert.equal(result.status, 200);
    assert.equal(result.id, sid);
    const p = formParams(lastAt('/webhooks/agent-1/whatsapp').body);
    assert.equal(p['From'], 'whatsapp:+819012345678');
    assert.equal(p['To'], 'whatsapp:+15555550100');
    assert.equal(p['WaId'], '819012345678');
    assert.equal(p['MessageSid'], sid);
    assert.equal(lastAt('/webhooks/agent-1/whatsapp').path, '/webhooks/agent-1/whatsapp');
  });

  it('breaks the Twilio signature on tamper and omits it on request', async () => {
    const tampered = await sim.inbound.sms({ agentId: 'a', from: '+15551112222', to: '+15555550100', body: 'pay me', tamper: true });
    assert.equal(tampered.status, 403);
    assert.notEqual(formParams(lastAt('/webhooks/a/sms').body)['Body'], 'pay me');
    const unsigned = await sim.inbound.sms({ agentId: 'a', from: '+15551112222', to: '+15555550100', body: 'x', omitSignature: true });
    assert.equal(unsigned.status, 403);
    assert.equal(lastAt('/webhooks/a/sms').headers['x-twilio-signature'], undefined);
  });

  it('posts an exact url when given one, query string included in the signature', async () => {
    const result = await sim.inbound.sms({ url: `${gateway.url}/custom/sms?tenant=7`, from: '+15551112222', to: '+15555550100', body: 'q' });
    assert.equal(result.status, 200);
    assert.equal(lastAt('/custom/sms').path, '/custom/sms?tenant=7');
  });

  it('sends message status callbacks to the message StatusCallback, else to the agent webhook', async () => {
    const message = await twilioClientFor(sim).messages.create({ to: '+15551230001', from: '+15555550100', body: 'x', statusCallback: `${gateway.url}/status/cb` });
    const result = await sim.inbound.messageStatus({ agentId: 'agent-1', messageSid: message.sid, status: 'undelivered', errorCode: '30003' });
    assert.equal(result.status, 200);
    assert.equal(result.url, `${gateway.url}/status/cb`);
    const w = gateway.received.find((r) => formParams(r.body)['MessageStatus'] === 'undelivered')!;
    const p = formParams(w.body);
    assert.deepEqual([w.path, p['ErrorCode'], p['MessageSid'], p['To'], p['From']], ['/status/cb', '30003', message.sid, '+15551230001', '+15555550100']);

    const unknown = await sim.inbound.messageStatus({ agentId: 'agent-1', messageSid: `SM${'9'.repeat(32)}`, status: 'delivered', price: '-0.00790', to: '+15551230002' });
    assert.equal(unknown.status, 200);
    assert.equal(lastAt('/webhooks/agent-1/sms').path, '/webhooks/agent-1/sms');
    assert.equal(formParams(lastAt('/webhooks/agent-1/sms').body)['Price'], '-0.00790');
  });

  it('stores an inbound email and posts email.received signed through Svix', async () => {
    const result = await sim.inbound.email({ agentId: 'agent-2', from: 'Ada <ada@example.com>', to: 'agent-2@switchboard.test', subject: 'Hello', text: 'Plain body', html: '<p>Html body</p>' });
    assert.equal(result.status, 200);
    assert.match(result.svixId ?? '', /^msg_/);
    const w = lastAt('/webhooks/agent-2/email');
    assert.equal(w.path, '/webhooks/agent-2/email');
    assert.equal(header(w.headers, 'svix-id'), result.svixId);
    const event = JSON.parse(w.body);
    assert.equal(event.type, 'email.received');
    assert.equal(event.data.email_id, result.id);
    assert.deepEqual(event.data.to, ['agent-2@switchboard.test']);
    assert.equal(event.data.subject, 'Hello');
    assert.deepEqual(event.data.attachments, []);
    assert.equal(event.data.text, undefined, 'the event carries no body; the API does');

    const resend = new Resend(sim.credentials.resend.apiKey, { baseUrl: sim.baseUrls.resend });
    const { data } = await resend.emails.receiving.get(result.id);
    assert.equal(data?.text, 'Plain body');
    assert.equal(data?.html, '<p>Html body</p>');
    assert.equal(data?.from, 'Ada <ada@example.com>');
    assert.equal(data?.headers?.['subject'], 'Hello');
  });

  it('breaks Svix deliveries on tamper, omitted signature and an expired timestamp', async () => {
    const base = { agentId: 'agent-2', from: 'x@example.com', to: 'agent-2@switchboard.test', subject: 's', text: 't' };
    assert.equal((await sim.inbound.email({ ...base, tamper: true })).status, 403);
    assert.equal((await sim.inbound.email({ ...base, omitSignature: true })).status, 403);
    const old = new Date(Date.now() - 10 * 60 * 1000);
    assert.equal((await sim.inbound.email({ ...base, timestamp: old })).status, 403);
    assert.equal(header(lastAt('/webhooks/agent-2/email').headers, 'svix-timestamp'), String(Math.floor(old.getTime() / 1000)));
    const replay = await sim.inbound.email({ ...base, svixId: 'msg_replayed' });
    assert.equal(replay.svixId, 'msg_replayed');
    assert.equal(replay.status, 200);
  });

  it('sends delivery events for a sent email', async () => {
    const resend = new Resend(sim.credentials.resend.apiKey, { baseUrl: sim.baseUrls.resend });
    const { data } = await resend.emails.send({ from: 'agent@switchboard.test', to: 'bob@example.com', subject: 'Hi', text: 'x' });
    const bounced = await sim.inbound.emailEvent({ agentId: 'agent-2', type: 'email.bounced', emailId: data!.id });
    assert.equal(bounced.status, 200);
    const event = JSON.parse(lastAt('/webhooks/agent-2/email').body);
    assert.equal(event.type, 'email.bounced');
    assert.equal(event.data.email_id, data!.id);
    assert.deepEqual(event.data.to, ['bob@example.com']);
    assert.equal(event.data.bounce.type, 'Permanent');
    assert.equal((await resend.emails.get(data!.id)).data?.last_event, 'bounced');
  });

  it('posts a LINE message event signed with the channel secret', async () => {
    const userId = `U${'cd'.repeat(16)}`;
    const result = await sim.inbound.line({ agentId: 'agent-3', userId, text: 'hello bot' });
    assert.equal(result.status, 200);
    const w = lastAt('/webhooks/agent-3/line');
    assert.equal(w.path, '/webhooks/agent-3/line');
    const body = JSON.parse(w.body);
    assert.equal(body.destination, sim.credentials.line.botUserId);
    const [event] = body.events;
    assert.equal(event.webhookEventId, result.id);
    assert.deepEqual([event.type, event.mode, event.message.type, event.message.text, event.source.userId], ['message', 'active', 'text', 'hello bot', userId]);
    assert.equal(event.deliveryContext.isRedelivery, false);
    assert.equal(event.replyToken, result.replyToken);
    assert.match(event.message.id, /^\d{18}$/);
    assert.ok(event.message.quoteToken);

    assert.equal((await sim.inbound.line({ agentId: 'agent-3', userId, text: 'x', tamper: true })).status, 403);
    assert.equal((await sim.inbound.line({ agentId: 'agent-3', userId, text: 'x', omitSignature: true })).status, 403);
    const replay = await sim.inbound.line({ agentId: 'agent-3', userId, text: 'x', webhookEventId: result.id });
    assert.equal(replay.id, result.id);
  });

  it('refuses to send without a target', async () => {
    const bare = await startSimulator();
    try {
      await assert.rejects(bare.inbound.sms({ agentId: 'a', from: '+15551112222', to: '+15555550100', body: 'x' }), /gatewayUrl/);
      // Through the control API, as the cluster quick start uses it: the answer says which flag is missing.
      const res = await fetch(`${bare.url}/_sim/inbound/sms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agentId: 'a', from: '+15551112222', to: '+15555550100', body: 'x' }) });
      assert.equal(res.status, 400);
      assert.match(((await res.json()) as { error: string }).error, /start switchboard-simulator with --gateway-url <Switchboard PUBLIC_BASE_URL>/);
      await assert.rejects(bare.inbound.line({ userId: 'U1', text: 'x' }), /agentId/);
    } finally {
      await bare.close();
    }
  });
});
