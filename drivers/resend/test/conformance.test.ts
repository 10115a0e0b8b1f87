import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { isNotAccepted, type Driver, type WebhookRequest } from '@switchboard/sdk';
import { describeDriverConformance, startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import { Webhook } from 'svix';
import driver, { type ResendSettings } from '../src/index.js';

const AGENT = 'agent@switchboard.test';
const PERSON = 'person@example.com';
const PATH = '/webhooks/agent-1/email';
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };

let sim: Simulator;
let hooks: WebhookReceiver;

const settingsOf = (s: Simulator): ResendSettings => ({ ...s.credentials.resend, baseUrl: s.baseUrls.resend });

/** A body signed with svix the way Resend signs it, for payloads the simulator never sends. */
function signedJson(secret: string, url: string, body: string): WebhookRequest {
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  const now = new Date();
  return {
    channel: 'email',
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      'svix-id': id,
      'svix-timestamp': String(Math.floor(now.getTime() / 1000)),
      'svix-signature': new Webhook(secret).sign(id, now, body),
    },
    rawBody: Buffer.from(body),
  };
}

const inboundEmail = (extra: { tamper?: boolean; omitSignature?: boolean; timestamp?: Date } = {}) =>
  hooks.capture('email', PATH, (url) => sim.inbound.email({ url, from: PERSON, to: AGENT, subject: 'Question', text: 'Are you there?', ...extra }));

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
  wrongCredentials: () => ({ ...settingsOf(sim), apiKey: 're_wrong_key' }),
  invalidSettings: [
    {},
    { apiKey: 're_x' },
    { apiKey: '', webhookSecret: 'whsec_aGVsbG8=' },
    { apiKey: 're_x', webhookSecret: 'not base64!' },
    { apiKey: 're_x', webhookSecret: 'whsec_aGVsbG8=', baseUrl: 'api.resend.com' },
  ],
  unknownExternalId: '00000000-0000-4000-8000-000000000000',
  sends: [
    { channel: 'email', from: AGENT, to: PERSON, subject: 'Hello', body: 'Plain text', html: '<p>Plain text</p>', idempotencyKey: 'conformance-1' },
  ],
  injectFault: (status) => sim.faults.add({ provider: 'resend', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  webhooks: {
    signed: () => inboundEmail(),
    tampered: () => inboundEmail({ tamper: true }),
    unsigned: () => inboundEmail({ omitSignature: true }),
    expired: () => inboundEmail({ timestamp: new Date(Date.now() - 10 * 60_000) }),
    malformed: () => signedJson(sim.credentials.resend.webhookSecret, `${hooks.url}${PATH}`, JSON.stringify({ type: 'email.received', created_at: new Date().toISOString() })),
    expectEvents: (events) => assert.equal(events[0]?.type === 'message' && events[0].body, 'Are you there?'),
  },
});

describe('resend driver against the simulator', () => {
  let s: Simulator;
  let receiver: WebhookReceiver;
  let d: Driver;

  before(async () => {
    s = await startSimulator({ statusCallbacks: false });
    receiver = await startWebhookReceiver();
    d = await driver.create(settingsOf(s), context);
  });
  after(async () => {
    await d.close?.();
    await receiver.close();
    await s.close();
  });

  it('sends an email: the simulator records from, to, subject, text and html, and the idempotency key', async () => {
    const result = await d.send!({ channel: 'email', from: AGENT, to: PERSON, subject: 'Report', body: 'All good', html: '<b>All good</b>', idempotencyKey: 'key-42' });
    const sent = s.messages({ provider: 'resend' }).find((m) => m.id === result.externalId);
    assert.ok(sent, 'the simulator recorded the email');
    assert.equal(sent.from, AGENT);
    assert.equal(sent.to, PERSON);
    assert.equal(sent.subject, 'Report');
    assert.equal(sent.body, 'All good');
    assert.equal(sent.html, '<b>All good</b>');
    const request = s.requests('resend').find((r) => r.method === 'POST' && r.path.endsWith('/emails'));
    assert.equal(request?.headers['idempotency-key'], 'key-42');
    assert.deepEqual({ status: result.status, cost: result.cost, segments: result.segments }, { status: 'accepted', cost: null, segments: 1 });
  });

  it('a refused connection is a retryable PROVIDER_ERROR that provably was not accepted (failover may move on)', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const closed = await driver.create({ ...settingsOf(s), baseUrl: `http://127.0.0.1:${port}` }, context);
    const err = await closed.send!({ channel: 'email', from: AGENT, to: PERSON, subject: 'S', body: 'B', idempotencyKey: 'key-refused' }).then(() => undefined, (e: unknown) => e);
    assert.equal((err as { code?: string }).code, 'PROVIDER_ERROR');
    assert.equal((err as { retryable?: boolean }).retryable, true);
    assert.equal(isNotAccepted(err), true);
    assert.match((err as Error).message, /ECONNREFUSED/);
  });

  it('refuses an email without a subject before calling Resend', async () => {
    await assert.rejects(d.send!({ channel: 'email', from: AGENT, to: PERSON, body: 'x' }), { code: 'VALIDATION_FAILED' });
  });

  it('fetches the body of a received email through the received-emails API', async () => {
    const request = await receiver.capture('email', PATH, (url) =>
      s.inbound.email({ url, from: `Pat Person <${PERSON}>`, to: AGENT, subject: 'With HTML', text: 'plain body', html: '<p>html body</p>', emailId: '0b6d7e6c-5a7e-4a7e-9f3e-1c2d3e4f5a6b' }),
    );
    await d.webhooks!.verify(request);
    const [event] = await d.webhooks!.parse(request);
    assert.ok(event?.type === 'message');
    assert.equal(event.externalId, '0b6d7e6c-5a7e-4a7e-9f3e-1c2d3e4f5a6b');
    assert.equal(event.from, PERSON);
    assert.equal(event.to, AGENT);
    assert.equal(event.subject, 'With HTML');
    assert.equal(event.body, 'plain body');
    assert.equal(event.html, '<p>html body</p>');
    assert.ok(s.requests('resend').some((r) => r.method === 'GET' && r.path.includes('/emails/receiving/0b6d7e6c')));
  });

  it('turns delivery events into status receipts keyed by svix-id', async () => {
    const { externalId } = await d.send!({ channel: 'email', from: AGENT, to: PERSON, subject: 'S', body: 'B' });
    for (const [type, status] of [['email.delivered', 'delivered'], ['email.bounced', 'undelivered']] as const) {
      const request = await receiver.capture('email', PATH, (url) => s.inbound.emailEvent({ url, type, emailId: externalId }));
      await d.webhooks!.verify(request);
      const [event] = await d.webhooks!.parse(request);
      assert.ok(event?.type === 'status', type);
      assert.equal(event.externalId, externalId);
      assert.equal(event.status, status);
      assert.equal(event.eventId, request.headers['svix-id']);
    }
  });

  it('reports a signed body that is not JSON as MALFORMED_PAYLOAD, not as a bad signature', async () => {
    const request = signedJson(s.credentials.resend.webhookSecret, `${receiver.url}${PATH}`, 'not json');
    await d.webhooks!.verify(request);
    await assert.rejects(async () => d.webhooks!.parse(request), { code: 'MALFORMED_PAYLOAD' });
  });

  it('fails a received-email fetch the provider refuses with a retryable PROVIDER_ERROR', async () => {
    const request = await receiver.capture('email', PATH, (url) => s.inbound.email({ url, from: PERSON, to: AGENT, subject: 's', text: 't' }));
    s.faults.add({ provider: 'resend', pathIncludes: '/emails/receiving', status: 503, times: 1 });
    await assert.rejects(async () => d.webhooks!.parse(request), { code: 'PROVIDER_ERROR', retryable: true });
  });

  it('refuses an email_id that is not a Resend id as MALFORMED_PAYLOAD without putting it into a URL', async () => {
    for (const emailId of ['../../etc/passwd', 'abc', '0b6d7e6c-5a7e-4a7e-9f3e-1c2d3e4f5a6b/attachments']) {
      const request = await receiver.capture('email', PATH, (url) => s.inbound.email({ url, from: PERSON, to: AGENT, subject: 's', text: 't', emailId }));
      await d.webhooks!.verify(request);
      const fetches = s.requests('resend').length;
      await assert.rejects(async () => d.webhooks!.parse(request), { code: 'MALFORMED_PAYLOAD' }, emailId);
      assert.equal(s.requests('resend').length, fetches, `${emailId} reached the API`);
    }
    const status = signedJson(s.credentials.resend.webhookSecret, `${receiver.url}${PATH}`, JSON.stringify({ type: 'email.delivered', data: { email_id: '../x' } }));
    await assert.rejects(async () => d.webhooks!.parse(status), { code: 'MALFORMED_PAYLOAD' });
  });

  it("tells a permanent refusal of the fetch (404) from one an operator can fix (our key: 401/403)", async () => {
    const request = await receiver.capture('email', PATH, (url) => s.inbound.email({ url, from: PERSON, to: AGENT, subject: 's', text: 't' }));
    for (const [status, retryable] of [[404, false], [422, false], [401, true], [403, true]] as const) {
      s.faults.add({ provider: 'resend', pathIncludes: '/emails/receiving', status, times: 1 });
      await assert.rejects(async () => d.webhooks!.parse(request), { code: 'PROVIDER_ERROR', retryable }, String(status));
    }
  });

  it('acknowledges with {"ok":true}', () => {
    assert.deepEqual(d.webhooks!.acknowledge('email'), { contentType: 'application/json', body: '{"ok":true}' });
  });
});
