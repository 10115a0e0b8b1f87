import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { isNotAccepted, type Driver, type WebhookRequest } from '@switchboard/sdk';
import { startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import driver, { verifyCredentials, type PostmarkSettings } from '../src/index.js';
import { postmarkCodeOf } from '../src/failure.js';

const AGENT = 'agent@switchboard.test';
const PERSON = 'person@example.com';
const PATH = '/webhooks/agent-1/email';
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };
const settingsOf = (s: Simulator): PostmarkSettings => {
  const c = s.credentials.postmark;
  return { serverToken: c.serverToken, webhookUsername: c.webhookUsername, webhookPassword: c.webhookPassword, baseUrl: s.baseUrls.postmark };
};

/** A request as Postmark posts one, with `authorization` as given. */
function posted(body: unknown, authorization?: string): WebhookRequest {
  return {
    channel: 'email',
    method: 'POST',
    url: `http://127.0.0.1${PATH}`,
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    rawBody: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  };
}
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('postmark driver against the simulator', () => {
  let s: Simulator;
  let receiver: WebhookReceiver;
  let d: Driver;
  let n = 0;
  const email = (extra: Record<string, unknown> = {}) => ({ channel: 'email' as const, from: AGENT, to: PERSON, subject: 'Report', body: `All good ${++n}`, ...extra });

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

  it('sends through POST /email with the server token: text, html, threading headers, the send key as Metadata', async () => {
    const result = await d.send!(email({ html: '<b>All good</b>', inReplyTo: '<a@example.com>', references: ['<r@example.com>', '<a@example.com>'], idempotencyKey: 'msg_1' }));
    assert.match(result.externalId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual([result.status, result.cost, result.segments], ['accepted', null, 1]);
    const request = s.requests('postmark').find((r) => r.method === 'POST' && r.path === '/postmark/email');
    assert.equal(request?.headers['x-postmark-server-token'], s.credentials.postmark.serverToken);
    const body = request?.body as Record<string, unknown>;
    assert.deepEqual([body['From'], body['To'], body['Subject'], body['HtmlBody'], body['MessageStream']], [AGENT, PERSON, 'Report', '<b>All good</b>', 'outbound']);
    assert.deepEqual(body['Headers'], [{ Name: 'In-Reply-To', Value: '<a@example.com>' }, { Name: 'References', Value: '<r@example.com> <a@example.com>' }]);
    assert.deepEqual(body['Metadata'], { switchboard_send: 'msg_1' });
    const sent = s.messages({ provider: 'postmark' }).find((m) => m.id === result.externalId);
    assert.deepEqual([sent?.from, sent?.to, sent?.subject, sent?.html], [AGENT, PERSON, 'Report', '<b>All good</b>']);
    assert.equal(sent?.headers?.['In-Reply-To'], '<a@example.com>');
  });

  it('refuses an email without a subject before calling Postmark', async () => {
    const before = s.requests('postmark').length;
    await assert.rejects(d.send!({ channel: 'email', from: AGENT, to: PERSON, body: 'x' }), { code: 'VALIDATION_FAILED' });
    assert.equal(s.requests('postmark').length, before);
  });

  it("maps Postmark's refusals: 300 an invalid address, 400 a sender without a signature; not retryable, provably not accepted", async () => {
    for (const [message, code] of [[email({ to: 'not an address' }), 300], [email({ from: 'agent@elsewhere.example' }), 400]] as const) {
      const err = await d.send!(message).then(() => undefined, (e: unknown) => e);
      assert.equal((err as { code?: string }).code, 'PROVIDER_ERROR');
      assert.equal((err as { retryable?: boolean }).retryable, false);
      assert.equal(isNotAccepted(err), true);
      assert.equal(postmarkCodeOf(err), code);
      assert.match((err as Error).message, new RegExp(`HTTP 422.*ErrorCode ${code}`));
    }
  });

  it('a refused connection is a retryable PROVIDER_ERROR that provably was not accepted (failover may move on)', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const closed = await driver.create({ ...settingsOf(s), baseUrl: `http://127.0.0.1:${port}/postmark` }, context);
    const err = await closed.send!(email()).then(() => undefined, (e: unknown) => e);
    assert.equal((err as { code?: string }).code, 'PROVIDER_ERROR');
    assert.equal((err as { retryable?: boolean }).retryable, true);
    assert.equal(isNotAccepted(err), true);
  });

  it('a hard bounce makes Postmark refuse the address (406, inactive recipient) until the bounce is activated', async () => {
    const { externalId } = await d.send!(email({ to: 'gone@example.com' }));
    const bounced = await receiver.capture('email', PATH, (url) => s.inbound.postmarkEvent({ url, type: 'HardBounce', messageId: externalId }));
    await d.webhooks!.verify(bounced);
    const [event] = await d.webhooks!.parse(bounced);
    assert.ok(event?.type === 'status');
    assert.deepEqual([event.externalId, event.status, event.errorCode, event.suppression], [externalId, 'undelivered', 'HardBounce', 'hard-bounce']);
    const err = await d.send!(email({ to: 'gone@example.com' })).then(() => undefined, (e: unknown) => e);
    assert.equal(postmarkCodeOf(err), 406);
    assert.equal((err as { retryable?: boolean }).retryable, false);
    const bounceId = (JSON.parse(bounced.rawBody.toString('utf8')) as { ID: number }).ID;
    const activated = await fetch(`${s.baseUrls.postmark}/bounces/${bounceId}/activate`, { method: 'PUT', headers: { 'x-postmark-server-token': s.credentials.postmark.serverToken, accept: 'application/json' } });
    assert.equal(activated.status, 200);
    await d.send!(email({ to: 'gone@example.com' }));
  });

  it('findSent finds a send by addresses, subject and body; one whose Metadata names another send is not it', async () => {
    const since = new Date(Date.now() - 1000);
    const message = email({ idempotencyKey: 'msg_find' });
    const { externalId } = await d.send!(message);
    assert.deepEqual((await d.findSent!(message, since)).map((r) => r.externalId), [externalId]);
    assert.deepEqual(await d.findSent!({ ...message, idempotencyKey: 'msg_other' }, since), []);
    assert.deepEqual(await d.findSent!({ ...message, subject: 'Other' }, since), []);
    assert.deepEqual(await d.findSent!({ ...message, idempotencyKey: undefined }, since).then((r) => r.map((x) => x.externalId)), [externalId]);
  });

  it('fetchStatus reads the message details: sent, then delivered after a Delivery; unknown ids answer undefined without a request', async () => {
    const message = email();
    const { externalId } = await d.send!(message);
    const ref = { channel: 'email' as const, externalId, from: AGENT, to: PERSON, sentAt: new Date() };
    assert.equal((await d.fetchStatus!(ref))?.status, 'sent');
    await receiver.capture('email', PATH, (url) => s.inbound.postmarkEvent({ url, type: 'Delivery', messageId: externalId }));
    assert.equal((await d.fetchStatus!(ref))?.status, 'delivered');
    const before = s.requests('postmark').length;
    assert.equal(await d.fetchStatus!({ ...ref, externalId: '../../server' }), undefined);
    assert.equal(s.requests('postmark').length, before);
  });

  it('turns Delivery, SpamComplaint, soft and transient bounces into receipts; Open records into nothing', async () => {
    const { externalId } = await d.send!(email());
    const parse = async (type: 'Delivery' | 'SpamComplaint' | 'SoftBounce') => {
      const request = await receiver.capture('email', PATH, (url) => s.inbound.postmarkEvent({ url, type, messageId: externalId, recipient: 'x@example.com' }));
      await d.webhooks!.verify(request);
      const [event] = await d.webhooks!.parse(request);
      assert.ok(event?.type === 'status', type);
      return event;
    };
    const delivered = await parse('Delivery');
    assert.deepEqual([delivered.externalId, delivered.status, delivered.suppression], [externalId, 'delivered', undefined]);
    assert.match(delivered.eventId!, new RegExp(`^Delivery/${externalId}/`));
    const complaint = await parse('SpamComplaint');
    assert.deepEqual([complaint.status, complaint.errorCode, complaint.suppression], ['delivered', 'SpamComplaint', 'complaint']);
    const soft = await parse('SoftBounce');
    assert.deepEqual([soft.status, soft.errorCode, soft.suppression], ['undelivered', 'SoftBounce', undefined]);
    const transient = await d.webhooks!.parse(posted({ RecordType: 'Bounce', Type: 'Transient', MessageID: externalId, Email: 'x@example.com' }));
    assert.deepEqual(transient.map((e) => e.type === 'status' && e.status), ['sending']);
    assert.deepEqual(await d.webhooks!.parse(posted({ RecordType: 'Open', MessageID: externalId })), []);
    // The older server-level hooks name no RecordType.
    const legacy = await d.webhooks!.parse(posted({ MessageID: externalId, Recipient: 'x@example.com', DeliveredAt: '2016-12-01T15:41:45-05:00', Details: 'smtp;250 OK' }));
    assert.deepEqual(legacy.map((e) => e.type === 'status' && e.status), ['delivered']);
    const legacyBounce = await d.webhooks!.parse(posted({ ID: 42, Type: 'HardBounce', MessageID: externalId, Email: 'x@example.com', BouncedAt: '2016-12-01T15:41:45-05:00' }));
    assert.deepEqual(legacyBounce.map((e) => e.type === 'status' && [e.status, e.suppression]), [['undelivered', 'hard-bounce']]);
  });

  it('parses an inbound email: sender, our address, subject, text and html, its Message-ID', async () => {
    const request = await receiver.capture('email', PATH, (url) =>
      s.inbound.postmarkEmail({ url, from: `Pat Person <${PERSON}>`, to: `Agent <${AGENT}>`, subject: 'With HTML', text: 'plain body', html: '<p>html body</p>' }),
    );
    await d.webhooks!.verify(request);
    const [event] = await d.webhooks!.parse(request);
    assert.ok(event?.type === 'message');
    assert.deepEqual([event.from, event.to, event.subject, event.body, event.html], [PERSON, AGENT, 'With HTML', 'plain body', '<p>html body</p>']);
    assert.match(event.emailMessageId!, /^<.+@example\.com>$/);
  });

  it('checks the HTTP Basic credentials: those of the URL as Postmark sends them pass; wrong, missing or not Basic are SIGNATURE_INVALID', async () => {
    const c = s.credentials.postmark;
    const withUrlCredentials = await receiver.capture('email', PATH, (url) =>
      s.inbound.postmarkEmail({ url: url.replace('http://', `http://${c.webhookUsername}:${c.webhookPassword}@`), from: PERSON, to: AGENT, subject: 's', text: 't', credentials: undefined }),
    );
    assert.equal(withUrlCredentials.headers['authorization'], basic(c.webhookUsername, c.webhookPassword));
    await d.webhooks!.verify(withUrlCredentials);
    const settings = { webhookUsername: c.webhookUsername, webhookPassword: c.webhookPassword };
    for (const authorization of [undefined, basic(c.webhookUsername, 'wrong-password-but-long'), basic('someone', c.webhookPassword), basic(c.webhookUsername, ''), `Bearer ${c.webhookPassword}`, 'Basic !!!']) {
      assert.throws(() => verifyCredentials(settings, posted({}, authorization)), { code: 'SIGNATURE_INVALID' }, String(authorization));
    }
    const wrong = await receiver.capture('email', PATH, (url) => s.inbound.postmarkEmail({ url, from: PERSON, to: AGENT, subject: 's', text: 't', credentials: { username: c.webhookUsername, password: 'not-the-password-at-all' } }));
    await assert.rejects(async () => d.webhooks!.verify(wrong), { code: 'SIGNATURE_INVALID' });
  });

  it('reports bodies that are not Postmark JSON, or ids that are not Postmark ids, as MALFORMED_PAYLOAD', async () => {
    for (const body of ['not json', '[]', { RecordType: 'Delivery' }, { RecordType: 'Bounce', MessageID: '../x', Type: 'HardBounce' }, { From: PERSON, MessageID: 'abc' }, { MessageID: '0b6d7e6c-5a7e-4a7e-9f3e-1c2d3e4f5a6b' }]) {
      await assert.rejects(async () => d.webhooks!.parse(posted(body)), { code: 'MALFORMED_PAYLOAD' }, JSON.stringify(body));
    }
  });

  it('health names the server; acknowledges with {"ok":true}', async () => {
    const health = await d.health!();
    assert.equal(health.ok, true, health.message);
    assert.match(health.message, /Switchboard \(simulated\)/);
    assert.deepEqual(d.webhooks!.acknowledge('email'), { contentType: 'application/json', body: '{"ok":true}' });
  });
});
