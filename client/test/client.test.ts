import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { createClient, isSwitchboardError, SwitchboardApiError, unwrap, type InboxEntry, type SwitchboardClient } from '@switchboard/client';
import { provisionAgent, startTestGateway, type TestGateway } from '../../test/helpers/gateway.js';

describe('@switchboard/client against a real server', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let client: SwitchboardClient;
  let customers = 0;
  const customer = () => `+1415555${String(2000 + ++customers).padStart(4, '0')}`;

  before(async () => {
    t = await startTestGateway();
    agent = await provisionAgent(t, 'client-a', ['sms']);
    client = createClient({ baseUrl: t.url, token: agent.securityToken });
  });
  after(() => t.close());

  it('sends a message; the same idempotency key twice sends it once and answers the first result', async () => {
    const to = customer();
    const first = await client.sendMessage({ channel: 'sms', to, body: 'Once only' }, { idempotencyKey: 'order-17-confirmation' });
    const second = await client.sendMessage({ channel: 'sms', to, body: 'Once only' }, { idempotencyKey: 'order-17-confirmation' });
    assert.equal(first.success, true);
    assert.equal(second.messageId, first.messageId);
    assert.equal(t.sim.messages({ channel: 'sms', to }).length, 1, 'the provider got one message');
    // Without a key of the caller's, each call is a send of its own.
    const third = await client.sendMessage({ channel: 'sms', to, body: 'Once only' });
    assert.notEqual(third.messageId, first.messageId);
    assert.equal(t.sim.messages({ channel: 'sms', to }).length, 2);
  });

  it('every route is reachable typed through client.GET/POST: the raw answer carries data or the error body', async () => {
    const status = await client.GET('/api/v1/channel-status', { params: { query: {} } });
    assert.equal(status.response.status, 200);
    assert.equal(status.data?.agentId, agent.agentId);
    assert.equal(status.data?.channels.sms?.status, 'active');
    const replay = await client.POST('/api/v1/send-message', { body: { channel: 'sms', to: customer(), body: 'raw' }, params: { header: { 'Idempotency-Key': 'raw-1' } } });
    assert.equal(replay.data?.success, true);
  });

  it('an error body surfaces typed: raw as `error`, from a convenience as a SwitchboardApiError with its code', async () => {
    const raw = await client.POST('/api/v1/send-message', { body: { channel: 'sms', to: 'not-a-number', body: 'x' } });
    assert.equal(raw.response.status, 400);
    assert.equal(raw.data, undefined);
    assert.equal(raw.error?.code, 'VALIDATION_FAILED');
    assert.match(raw.error?.error ?? '', /\S/);

    const thrown = await client.sendMessage({ channel: 'sms', to: 'not-a-number', body: 'x' }).catch((err: unknown) => err);
    assert.ok(thrown instanceof SwitchboardApiError);
    assert.ok(isSwitchboardError(thrown, 'VALIDATION_FAILED'));
    assert.equal(thrown.status, 400);
    assert.equal(thrown.body.code, 'VALIDATION_FAILED');

    // Another agent's inbox with a client token: 403 FORBIDDEN, through unwrap.
    const other = await provisionAgent(t, 'client-b', ['sms']);
    const forbidden = await client.GET('/api/v1/inbox', { params: { query: { agentId: other.agentId } } }).then(unwrap).catch((err: unknown) => err);
    assert.ok(isSwitchboardError(forbidden, 'FORBIDDEN'), String(forbidden));
    assert.equal((forbidden as SwitchboardApiError).status, 403);

    // No token at all: 401 UNAUTHORIZED.
    const anonymous = createClient({ baseUrl: t.url });
    const unauthorized = await anonymous.sendMessage({ channel: 'sms', to: customer(), body: 'x' }).catch((err: unknown) => err);
    assert.ok(isSwitchboardError(unauthorized, 'UNAUTHORIZED'), String(unauthorized));
  });

  it('the inbox loop follows the cursor across pages, ends when caught up, and follows live with `follow`', async () => {
    const reader = await provisionAgent(t, 'client-inbox', ['sms']);
    const inboxClient = createClient({ baseUrl: t.url, token: reader.securityToken });
    const from = customer();
    for (let i = 1; i <= 5; i++) {
      const res = await t.sim.inbound.sms({ agentId: reader.agentId, from, to: reader.channels.sms!.address, body: `message ${i}` });
      assert.equal(res.status, 200);
    }
    const read: InboxEntry[] = [];
    for await (const entry of inboxClient.inbox({ after: 0, pageSize: 2 })) read.push(entry);
    assert.deepEqual(
      read.map((e) => e.payload.body),
      ['message 1', 'message 2', 'message 3', 'message 4', 'message 5'],
    );
    assert.deepEqual(
      read.map((e) => e.cursor),
      [...read.map((e) => e.cursor)].sort((a, b) => a - b),
      'cursor order',
    );
    assert.ok(read.every((e) => e.type === 'message.received' && e.counterpart === from));

    // Live: a message that comes while the loop waits is yielded; aborting ends the loop without an error.
    const controller = new AbortController();
    const live: InboxEntry[] = [];
    const following = (async () => {
      for await (const entry of inboxClient.inbox({ after: read.at(-1)!.cursor, follow: true, pollIntervalMs: 100, signal: controller.signal })) live.push(entry);
    })();
    await t.sim.inbound.sms({ agentId: reader.agentId, from, to: reader.channels.sms!.address, body: 'live one' });
    await eventually(() => live.length === 1, { timeoutMs: 20_000, message: 'the live entry' });
    assert.equal(live[0]!.payload.body, 'live one');
    controller.abort();
    await following;
    assert.equal(live.length, 1);
  });

  it('waitForReply: long polls until the counterpart answers, and answers timedOut with a cursor when none comes', async () => {
    const to = customer();
    await client.sendMessage({ channel: 'sms', to, body: 'Are you free on Tuesday?' });
    let conversationId: string | undefined;
    for await (const entry of client.inbox({ after: 0, pageSize: 500 })) if (entry.counterpart === to) conversationId = entry.conversationId;
    assert.ok(conversationId, 'the send is in the inbox');

    const none = await client.waitForReply(conversationId, { timeoutMs: 1000 });
    assert.equal(none.reply, null);
    assert.equal(none.timedOut, true);

    const waiting = client.waitForReply(conversationId, { after: none.cursor, timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await t.sim.inbound.sms({ agentId: agent.agentId, from: to, to: agent.channels.sms!.address, body: 'Tuesday works.' })).status, 200);
    const answer = await waiting;
    assert.equal(answer.timedOut, false);
    assert.equal(answer.reply?.payload.body, 'Tuesday works.');
    assert.equal(answer.reply?.type, 'message.received');

    const missing = await client.waitForReply('cnv_nosuchconversation').catch((err: unknown) => err);
    assert.ok(isSwitchboardError(missing, 'NOT_FOUND'), String(missing));
  });
});
