import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ServerClient } from 'postmark';
import { startSimulator, type Simulator } from '../src/index.js';
import { startReceiver, type WebhookReceiver } from './helpers.js';

const FROM = 'Agent <agent@switchboard.test>';

/** The official SDK pointed at the simulator, as the postmark driver points it. */
function clientFor(sim: Simulator, token = sim.credentials.postmark.serverToken): ServerClient {
  const url = new URL(sim.baseUrls.postmark);
  return new ServerClient(token, { requestHost: `${url.host}${url.pathname}`, useHttps: false, timeout: 5 });
}

const failure = (promise: Promise<unknown>) => promise.then(() => assert.fail('expected a refusal'), (err: { statusCode?: number; code?: number; message: string }) => err);

describe('Postmark API through the postmark SDK', () => {
  let sim: Simulator;
  let client: ServerClient;
  let hooks: WebhookReceiver;

  before(async () => {
    sim = await startSimulator();
    client = clientFor(sim);
    hooks = await startReceiver();
  });
  after(async () => {
    await hooks.close();
    await sim.close();
  });

  it('sends an email and answers as Postmark does: To, SubmittedAt in Eastern time, MessageID, ErrorCode 0', async () => {
    const answer = await client.sendEmail({ From: FROM, To: 'ada@example.com, Bob <bob@example.com>', Subject: 'Quarterly report', TextBody: 'Numbers attached.', HtmlBody: '<p>Numbers attached.</p>', Headers: [{ Name: 'In-Reply-To', Value: '<x@example.com>' }], Metadata: { order: '42' } });
    assert.equal(answer.ErrorCode, 0);
    assert.equal(answer.Message, 'OK');
    assert.equal(answer.To, 'ada@example.com, bob@example.com');
    assert.match(answer.SubmittedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}-05:00$/);
    assert.match(answer.MessageID, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const [sent] = sim.messages({ provider: 'postmark', to: 'bob@example.com' });
    assert.deepEqual([sent?.id, sent?.subject, sent?.body, sent?.html, sent?.headers?.['In-Reply-To']], [answer.MessageID, 'Quarterly report', 'Numbers attached.', '<p>Numbers attached.</p>', '<x@example.com>']);
    const details = await client.getOutboundMessageDetails(answer.MessageID);
    assert.deepEqual([details.TextBody, details.Status, details.MessageEvents], ['Numbers attached.', 'Sent', []]);
    assert.deepEqual(details.To.map((t) => t.Email), ['ada@example.com', 'bob@example.com']);
  });

  it('refuses as Postmark does: 401/10 for the token, 422 with 300 (address, no body) and 400 (no sender signature), 701 for an unknown message', async () => {
    const wrong = await failure(clientFor(sim, '00000000-0000-4000-8000-000000000000').sendEmail({ From: FROM, To: 'a@example.com', Subject: 's', TextBody: 't' }));
    assert.deepEqual([wrong.statusCode, wrong.code], [401, 10]);
    const badTo = await failure(client.sendEmail({ From: FROM, To: 'not-an-address', Subject: 's', TextBody: 't' }));
    assert.deepEqual([badTo.statusCode, badTo.code], [422, 300]);
    assert.match(badTo.message, /Invalid 'To' address/);
    const noBody = await failure(client.sendEmail({ From: FROM, To: 'a@example.com', Subject: 's' }));
    assert.deepEqual([noBody.statusCode, noBody.code], [422, 300]);
    const unsigned = await failure(client.sendEmail({ From: 'me@elsewhere.example', To: 'a@example.com', Subject: 's', TextBody: 't' }));
    assert.deepEqual([unsigned.statusCode, unsigned.code], [422, 400]);
    const unknown = await failure(client.getOutboundMessageDetails('00000000-0000-4000-8000-000000000000'));
    assert.deepEqual([unknown.statusCode, unknown.code], [422, 701]);
  });

  it('searches sent emails by recipient, sender and date, newest first', async () => {
    const start = new Date();
    const first = await client.sendEmail({ From: FROM, To: 'search@example.com', Subject: 'one', TextBody: '1' });
    const second = await client.sendEmail({ From: FROM, To: 'search@example.com', Subject: 'two', TextBody: '2' });
    await client.sendEmail({ From: FROM, To: 'other@example.com', Subject: 'three', TextBody: '3' });
    const eastern = new Date(start.getTime() - 5 * 3_600_000 - 60_000).toISOString().slice(0, 19);
    const found = await client.getOutboundMessages({ count: 10, offset: 0, recipient: 'search@example.com', fromEmail: 'agent@switchboard.test', fromDate: eastern });
    assert.deepEqual(found.Messages.map((m) => m.MessageID), [second.MessageID, first.MessageID]);
    assert.equal(found.TotalCount, 2);
    const later = new Date(Date.now() - 5 * 3_600_000 + 3_600_000).toISOString().slice(0, 19);
    assert.equal((await client.getOutboundMessages({ count: 10, offset: 0, recipient: 'search@example.com', fromDate: later })).TotalCount, 0);
  });

  it('names its server (GET /server)', async () => {
    const server = await client.getServer();
    assert.equal(server.Name, 'Switchboard (simulated)');
    assert.equal(server.DeliveryType, 'Live');
  });

  it("posts Delivery, Bounce and SpamComplaint webhooks with the URL's Basic credentials; a hard bounce deactivates the address until activated", async () => {
    const c = sim.credentials.postmark;
    const sent = await client.sendEmail({ From: FROM, To: 'gone@example.com', Subject: 'Hello', TextBody: 'Hi', Metadata: { k: 'v' } });
    const url = `${hooks.url}/email`;
    await sim.inbound.postmarkEvent({ url, type: 'Delivery', messageId: sent.MessageID });
    await sim.inbound.postmarkEvent({ url: url.replace('http://', 'http://alice:s3cret-s3cret-s3cret@'), type: 'HardBounce', messageId: sent.MessageID });
    const [delivery, bounce] = await hooks.waitFor(2);
    assert.equal(delivery!.headers.authorization, `Basic ${Buffer.from(`${c.webhookUsername}:${c.webhookPassword}`).toString('base64')}`);
    assert.equal(bounce!.headers.authorization, `Basic ${Buffer.from('alice:s3cret-s3cret-s3cret').toString('base64')}`);
    assert.equal(bounce!.url.includes('alice'), false, 'the credentials leave the URL for the header');
    const d = JSON.parse(delivery!.body) as Record<string, unknown>;
    assert.deepEqual([d['RecordType'], d['MessageID'], d['Recipient'], d['MessageStream'], d['Metadata']], ['Delivery', sent.MessageID, 'gone@example.com', 'outbound', { k: 'v' }]);
    const b = JSON.parse(bounce!.body) as Record<string, unknown>;
    assert.deepEqual([b['RecordType'], b['Type'], b['TypeCode'], b['Email'], b['Inactive'], b['MessageID']], ['Bounce', 'HardBounce', 1, 'gone@example.com', true, sent.MessageID]);
    const events = (await client.getOutboundMessageDetails(sent.MessageID)).MessageEvents.map((e) => e.Type);
    assert.deepEqual(events, ['Delivered', 'Bounced']);

    const inactive = await failure(client.sendEmail({ From: FROM, To: 'gone@example.com', Subject: 'again', TextBody: 'x' }));
    assert.deepEqual([inactive.statusCode, inactive.code], [422, 406]);
    await client.activateBounce(b['ID'] as number);
    assert.equal((await client.sendEmail({ From: FROM, To: 'gone@example.com', Subject: 'again', TextBody: 'x' })).ErrorCode, 0);

    await sim.inbound.postmarkEvent({ url, type: 'SpamComplaint', messageId: sent.MessageID, omitCredentials: true });
    const [, , complaint] = await hooks.waitFor(3);
    assert.equal(complaint!.headers.authorization, undefined);
    assert.deepEqual(JSON.parse(complaint!.body).RecordType, 'SpamComplaint');
  });

  it('posts an inbound email as the inbound webhook does: From, FromFull, ToFull, bodies, Headers with the Message-ID', async () => {
    const result = await sim.inbound.postmarkEmail({ url: `${hooks.url}/inbound`, from: 'Pat <pat@example.com>', to: 'agent@switchboard.test', subject: 'Hi', text: 'Hello', html: '<p>Hello</p>' });
    const received = (await hooks.waitFor(4))[3]!;
    const body = JSON.parse(received.body) as Record<string, any>;
    assert.equal(body.MessageID, result.id);
    assert.deepEqual([body.From, body.FromName, body.FromFull.Email, body.ToFull[0].Email, body.Subject, body.TextBody, body.HtmlBody], ['pat@example.com', 'Pat', 'pat@example.com', 'agent@switchboard.test', 'Hi', 'Hello', '<p>Hello</p>']);
    assert.ok(body.Headers.some((h: { Name: string; Value: string }) => h.Name === 'Message-ID' && /^<.+@example\.com>$/.test(h.Value)));
    assert.equal(body.RecordType, undefined);
  });
});
