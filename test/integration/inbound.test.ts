import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550123';
const LINE_USER = 'U' + 'cd'.repeat(16);

describe('inbound messages: signed webhooks, stored once, delivered or dead-lettered', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let secret: string | undefined;

  before(async () => {
    t = await startTestGateway();
    receiver = await startCallbackReceiver(() => secret);
    agent = await provisionAgent(t, 'inbox', ['sms', 'whatsapp', 'email', 'line']);
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    assert.equal(set.status, 200);
    secret = ((await set.json()) as { signingSecret: string }).signingSecret;
    assert.match(secret, /^whsec_/);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.status = 200;
    receiver.events.length = 0;
  });

  const inboundCount = async () =>
    (await t.gateway.runtime.inspect.stored.row<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE agent_id = 'inbox' AND direction = 'inbound'"))!.n;

  it('a signed SMS is stored and reaches the callback, verified with a Standard Webhooks library', async () => {
    const res = await t.sim.inbound.sms({ agentId: 'inbox', from: CUSTOMER, to: agent.channels.sms!.address, body: 'Is the shop open?' });
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /text\/xml/);
    assert.match(res.body, /<Response\s*\/>/);
    const [received] = await receiver.waitFor(1);
    assert.equal(received!.event.type, 'message.inbound');
    assert.equal(received!.event.agentId, 'inbox');
    assert.equal(received!.event.data.body, 'Is the shop open?');
    assert.equal(received!.event.data.from, CUSTOMER);
    assert.equal(received!.event.data.externalId, res.id);
    assert.equal(receiver.rejected, 0);
  });

  it('WhatsApp, email and LINE arrive too, each in its own provider format', async () => {
    const wa = await t.sim.inbound.whatsapp({ agentId: 'inbox', from: CUSTOMER, to: agent.channels.whatsapp!.address, body: 'wa hello' });
    assert.equal(wa.status, 200);
    const mail = await t.sim.inbound.email({ agentId: 'inbox', from: 'Ada <ada@example.com>', to: agent.channels.email!.address, subject: 'Hi', text: 'mail body', html: '<b>mail</b>' });
    assert.equal(mail.status, 200);
    assert.deepEqual(JSON.parse(mail.body), { ok: true });
    const line = await t.sim.inbound.line({ agentId: 'inbox', userId: LINE_USER, text: 'line hello' });
    assert.equal(line.status, 200);
    assert.deepEqual(JSON.parse(line.body), {});
    const events = await receiver.waitFor(3);
    const byChannel = Object.fromEntries(events.map((e) => [e.event.data.channel, e.event.data]));
    assert.equal(byChannel.whatsapp?.body, 'wa hello');
    assert.equal(byChannel.whatsapp?.from, CUSTOMER, 'the whatsapp: prefix is stripped');
    assert.equal(byChannel.email?.subject, 'Hi');
    assert.equal(byChannel.email?.body, 'mail body');
    assert.equal(byChannel.email?.html, '<b>mail</b>');
    assert.equal(byChannel.line?.body, 'line hello');
    assert.equal(byChannel.line?.from, LINE_USER);
  });

  it('tampered and missing signatures are 403 and nothing is stored', async () => {
    const before = await inboundCount();
    const attempts = [
      await t.sim.inbound.sms({ agentId: 'inbox', from: CUSTOMER, to: agent.channels.sms!.address, body: 'forged', tamper: true }),
      await t.sim.inbound.sms({ agentId: 'inbox', from: CUSTOMER, to: agent.channels.sms!.address, body: 'unsigned', omitSignature: true }),
      await t.sim.inbound.email({ agentId: 'inbox', from: 'a@example.com', to: agent.channels.email!.address, subject: 's', text: 'x', tamper: true }),
      await t.sim.inbound.email({ agentId: 'inbox', from: 'a@example.com', to: agent.channels.email!.address, subject: 's', text: 'x', timestamp: new Date(Date.now() - 3_600_000) }),
      await t.sim.inbound.line({ agentId: 'inbox', userId: LINE_USER, text: 'forged', tamper: true }),
      await t.sim.inbound.line({ agentId: 'inbox', userId: LINE_USER, text: 'unsigned', omitSignature: true }),
    ];
    for (const res of attempts) {
      assert.equal(res.status, 403, res.body);
      assert.equal(JSON.parse(res.body).code, 'SIGNATURE_INVALID');
    }
    assert.equal(await inboundCount(), before);
    const metrics = await (await t.call('GET', '/metrics')).text();
    assert.match(metrics, /switchboard_webhook_rejected_total\{provider="twilio",reason="signature"\} 2/);
  });

  it('a replayed webhook is stored once', async () => {
    const before = await inboundCount();
    const first = await t.sim.inbound.sms({ agentId: 'inbox', from: CUSTOMER, to: agent.channels.sms!.address, body: 'once only', messageSid: 'SM' + 'e'.repeat(32) });
    const again = await t.sim.inbound.sms({ agentId: 'inbox', from: CUSTOMER, to: agent.channels.sms!.address, body: 'once only', messageSid: 'SM' + 'e'.repeat(32) });
    assert.equal(first.status, 200);
    assert.equal(again.status, 200);
    assert.equal(await inboundCount(), before + 1);
    const lineId = '01HZZZREPLAY';
    await t.sim.inbound.line({ agentId: 'inbox', userId: LINE_USER, text: 'line once', webhookEventId: lineId });
    await t.sim.inbound.line({ agentId: 'inbox', userId: LINE_USER, text: 'line once', webhookEventId: lineId });
    assert.equal(await inboundCount(), before + 2);
  });

  it('a signed email whose id is not a Resend id is refused for good: 400, no fetch, nothing stored, counted', async () => {
    const before = await inboundCount();
    const fetchesBefore = t.sim.requests('resend').filter((r) => r.method === 'GET').length;
    const res = await t.sim.inbound.email({ agentId: 'inbox', from: 'a@example.com', to: agent.channels.email!.address, subject: 's', text: 'x', emailId: '../../etc/passwd' });
    assert.equal(res.status, 400, res.body);
    assert.equal(JSON.parse(res.body).code, 'MALFORMED_PAYLOAD');
    assert.equal(res.headers['webhook-delivery'], 'abort-message', 'Svix stops retrying');
    assert.equal(t.sim.requests('resend').filter((r) => r.method === 'GET').length, fetchesBefore, 'the id never went into a Resend URL');
    assert.equal(await inboundCount(), before);
    const metrics = await (await t.call('GET', '/metrics')).text();
    assert.match(metrics, /switchboard_webhook_rejected_total\{provider="resend",reason="malformed"\} 1/);
  });

  it("Resend's permanent refusal of a received email is a 4xx that stops retries; a transient one is a 5xx and the retry is stored", async () => {
    const before = await inboundCount();
    const email = { agentId: 'inbox', from: 'a@example.com', to: agent.channels.email!.address, subject: 'gone', text: 'x' };
    t.sim.faults.add({ provider: 'resend', pathIncludes: '/emails/receiving', status: 404, times: 1 });
    const gone = await t.sim.inbound.email(email);
    assert.equal(gone.status, 422, gone.body);
    assert.equal(JSON.parse(gone.body).code, 'PROVIDER_ERROR');
    assert.equal(gone.headers['webhook-delivery'], 'abort-message');
    assert.equal(await inboundCount(), before);
    const metrics = await (await t.call('GET', '/metrics')).text();
    assert.match(metrics, /switchboard_webhook_rejected_total\{provider="resend",reason="provider_refused"\} 1/);

    const retried = { ...email, subject: 'later', emailId: '5d0c4ab6-8a51-4a7b-9c1e-0f2b3c4d5e6f', svixId: 'msg_transient0000000000000000000' };
    t.sim.faults.add({ provider: 'resend', pathIncludes: '/emails/receiving', status: 503, times: 1 });
    const busy = await t.sim.inbound.email(retried);
    assert.equal(busy.status, 502, 'a transient failure asks the provider to retry');
    assert.equal(busy.headers['webhook-delivery'], undefined);
    const again = await t.sim.inbound.email(retried);
    assert.equal(again.status, 200, again.body);
    assert.equal(await inboundCount(), before + 1);
  });

  it('an unknown agent is 404; a wrong content type is 415', async () => {
    const unknown = await t.sim.inbound.sms({ agentId: 'nobody-here', from: CUSTOMER, to: '+12025550199', body: 'hello?' });
    assert.equal(unknown.status, 404);
    const wrongType = await t.call('POST', '/webhooks/inbox/sms', { body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    assert.equal(wrongType.status, 415);
  });

  it('a blocked channel answers 200 and stores nothing', async () => {
    await provisionAgent(t, 'blocked-inbox', ['sms']);
    await t.call('POST', '/admin/api/agents/blocked-inbox/blocked-channels', { token: t.orchestratorToken, json: { blockedChannels: ['sms'] } });
    const res = await t.sim.inbound.sms({ agentId: 'blocked-inbox', from: CUSTOMER, to: '+12025550100', body: 'ignored' });
    assert.equal(res.status, 200);
    assert.equal(res.body, '');
    const stored = await t.gateway.runtime.inspect.stored.row<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE agent_id = 'blocked-inbox'");
    assert.equal(stored!.n, 0);
  });

  it('with the receiver down, retries end in a dead letter that waiting-messages returns once and never again', async () => {
    receiver.status = 503;
    const res = await t.sim.inbound.sms({ agentId: 'inbox', from: CUSTOMER, to: agent.channels.sms!.address, body: 'nobody listening' });
    assert.equal(res.status, 200);
    let letters: { reason: string; body: string; attempts: number; direction: string }[] = [];
    await eventually(async () => (await t.gateway.runtime.inspect.stored.waitingLetters('inbox')) > 0, { message: "a waiting letter for 'inbox'" });
    const first = await t.call('GET', '/api/v1/waiting-messages?channel=sms', { token: agent.securityToken });
    letters = ((await first.json()) as { messages: typeof letters }).messages;
    const letter = letters.find((l) => l.body === 'nobody listening');
    assert.equal(letter?.reason, 'callback_failed');
    assert.equal(letter?.direction, 'inbound');
    assert.equal(letter?.attempts, 3);
    const second = (await (await t.call('GET', '/api/v1/waiting-messages', { token: agent.securityToken })).json()) as { messages: { body: string }[]; count: number };
    assert.ok(!second.messages.some((m) => m.body === 'nobody listening'), 'returned twice');
  });

  it('without a callback URL an inbound message waits as an agent_offline dead letter', async () => {
    const offline = await provisionAgent(t, 'offline', ['line']);
    await t.sim.inbound.line({ agentId: 'offline', userId: LINE_USER, text: 'are you there?' });
    await eventually(async () => (await t.gateway.runtime.inspect.stored.waitingLetters('offline')) > 0, { message: "a waiting letter for 'offline'" });
    const waiting = (await (await t.call('GET', '/api/v1/waiting-messages', { token: offline.securityToken })).json()) as {
      messages: { reason: string; body: string; channel: string }[];
      count: number;
    };
    assert.equal(waiting.count, 1);
    assert.deepEqual([waiting.messages[0]!.reason, waiting.messages[0]!.body, waiting.messages[0]!.channel], ['agent_offline', 'are you there?', 'line']);
  });

  it('for an agent no one hears, each message gets one letter, replays included (embedded: in the message commit, before the 200)', async () => {
    const quiet = await provisionAgent(t, 'quiet', ['sms']);
    const sids = Array.from({ length: 6 }, (_, i) => `SM${String(i).repeat(32)}`);
    // Sent together, with each message twice, so that they share group commits with their replays.
    const answers = await Promise.all(
      [...sids, ...sids].map((messageSid, i) => t.sim.inbound.sms({ agentId: 'quiet', from: CUSTOMER, to: quiet.channels.sms!.address, body: `quiet ${i % sids.length}`, messageSid })),
    );
    assert.deepEqual(answers.map((a) => a.status), answers.map(() => 200));
    const count = async (sql: string) => (await t.gateway.runtime.inspect.stored.row<{ n: number }>(sql, ['quiet']))!.n;
    assert.equal(await count("SELECT COUNT(*) AS n FROM messages WHERE agent_id = ? AND direction = 'inbound'"), sids.length);
    // Embedded, the letter commits with its message; a cluster queues the delivery, which writes it after the 200.
    if (process.env.SWITCHBOARD_TEST_CLUSTER === '1') {
      await eventually(async () => (await t.gateway.runtime.inspect.stored.waitingLetters('quiet')) >= sids.length, { message: `${sids.length} waiting letters for 'quiet'` });
    }
    assert.equal(await t.gateway.runtime.inspect.stored.waitingLetters('quiet'), sids.length, 'every letter stored, embedded before its 200');
    assert.equal(
      await count('SELECT COUNT(*) AS n FROM dead_letters d JOIN messages m ON m.id = d.message_id WHERE d.agent_id = ?'),
      sids.length,
      'each letter ends its own message',
    );
    const pending = await t.gateway.runtime.inspect.stored.pendingDeliveries();
    assert.ok(!pending.some((m) => m.agentId === 'quiet'), 'nothing left to re-drive');
  });

  it('STOP opts the number out: the agent cannot text it until START', async () => {
    const to = '+14155550777';
    const send = () => t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to, body: 'promo' } });
    assert.equal((await send()).status, 200);
    await t.sim.inbound.sms({ agentId: 'inbox', from: to, to: agent.channels.sms!.address, body: ' stop ' });
    const refused = await send();
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'RECIPIENT_OPTED_OUT');
    await t.sim.inbound.sms({ agentId: 'inbox', from: to, to: agent.channels.sms!.address, body: 'START' });
    assert.equal((await send()).status, 200);
  });

  it('a message and the receipts of a stored send are applied where their signature was checked, with no agent operation on the bus; a receipt for a send not stored yet goes on to the agent', async () => {
    const bus = t.gateway.runtime.inspect.bus;
    // Every webhook that went on to an agent's actor, as the raw body it carried (receipts of earlier sends may be among them).
    const forwarded: string[] = [];
    const request = bus.request.bind(bus);
    bus.request = ((subject: string, data: unknown, options?: object) => {
      const raw = (data as { rawBodyBase64?: unknown } | null)?.rawBodyBase64;
      if (subject.endsWith('.inbound') && typeof raw === 'string') forwarded.push(Buffer.from(raw, 'base64').toString());
      return request(subject, data, options);
    }) as typeof bus.request;
    try {
      const res = await t.sim.inbound.sms({ agentId: 'inbox', from: CUSTOMER, to: agent.channels.sms!.address, body: 'stored at the edge' });
      assert.equal(res.status, 200);
      const stored = await t.gateway.runtime.inspect.stored.row<{ id: string }>('SELECT id FROM messages WHERE external_id = ?', [res.id]);
      assert.ok(stored, 'the message is stored before the 200');
      assert.deepEqual(forwarded.filter((body) => body.includes(res.id)), [], 'no agent operation was asked for the message');
      await receiver.waitFor(1);
      // The provider's receipts are posted here, after the send answered (a provider's own may come before).
      t.sim.silence('twilio', 'sent');
      const sent = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: CUSTOMER, body: 'receipts follow' } });
      assert.equal(sent.status, 200);
      const { messageId, externalId } = (await sent.json()) as { messageId: string; externalId: string };
      for (const status of ['sent', 'delivered']) {
        const receipt = await t.sim.inbound.messageStatus({ agentId: 'inbox', messageSid: externalId, status });
        assert.equal(receipt.status, 200);
      }
      assert.equal((await t.gateway.runtime.inspect.stored.message(messageId))?.status, 'delivered', 'the receipts applied before their 200');
      assert.deepEqual(forwarded.filter((body) => body.includes(externalId)), [], 'no agent operation was asked for the receipts');
      const entries = await t.gateway.runtime.inspect.stored.rows<{ status: string }>('SELECT status FROM inbox_entries WHERE message_id = ? ORDER BY seq', [messageId]);
      assert.deepEqual(entries.map((e) => e.status), ['queued', 'sent', 'delivered'], 'one inbox entry per status');
      const told = () => receiver.events.filter((e) => e.event.type === 'message.status' && (e.event.data as { messageId?: string }).messageId === messageId);
      await eventually(() => told().length === 2, { message: () => `the agent told of both receipts; told ${JSON.stringify(told().map((e) => e.event.data))}` });
      assert.deepEqual(told().map((e) => (e.event.data as { status: string }).status).sort(), ['delivered', 'sent']);
      // A receipt of a send this gateway did not answer (another's, or one whose outcome is not stored yet) goes to the actor, which waits for it.
      const early = `SM${'e'.repeat(32)}`;
      const receipt = await t.sim.inbound.messageStatus({ agentId: 'inbox', messageSid: early, status: 'delivered', from: agent.channels.sms!.address, to: CUSTOMER });
      assert.equal(receipt.status, 200);
      assert.equal(forwarded.filter((body) => body.includes(early)).length, 1, "the receipt went on to the agent's actor");
    } finally {
      bus.request = request;
      t.sim.silence('twilio', undefined);
    }
  });

  it('callback URLs are validated and can be cleared', async () => {
    const bad = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: 'ftp://example.com' } });
    assert.equal(bad.status, 400);
    const tmp = await provisionAgent(t, 'cb-clear', ['line']);
    const set = (await (await t.call('PUT', '/api/v1/callback-url', { token: tmp.securityToken, json: { callbackUrl: 'https://agent.example.com/hook' } })).json()) as { signingSecret: string };
    const moved = (await (await t.call('PUT', '/api/v1/callback-url', { token: tmp.securityToken, json: { callbackUrl: 'https://agent.example.com/v2' } })).json()) as { signingSecret: string };
    assert.equal(moved.signingSecret, set.signingSecret, 'the secret survives a URL change');
    const cleared = (await (await t.call('PUT', '/api/v1/callback-url', { token: tmp.securityToken, json: { callbackUrl: null } })).json()) as Record<string, unknown>;
    assert.deepEqual(cleared, { success: true, agentId: 'cb-clear', callbackUrl: null, signingSecret: null });
  });
});
