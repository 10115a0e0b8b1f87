import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550123';
const LINE_USER = 'U' + 'ab'.repeat(16);

describe('POST /api/v1/send-message through the real vendor SDKs and the simulator', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  before(async () => {
    t = await startTestGateway();
    agent = await provisionAgent(t, 'sender', ['sms', 'whatsapp', 'email', 'line']);
  });
  after(() => t.close());

  const send = (json: object, token = agent.securityToken, headers?: Record<string, string>) =>
    t.call('POST', '/api/v1/send-message', { token, json, ...(headers ? { headers } : {}) });

  it('sends an SMS from the provisioned number; Twilio (simulated) records it', async () => {
    const res = await send({ channel: 'sms', to: CUSTOMER, body: 'Your table is ready' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.success, true);
    assert.match(String(body.externalId), /^SM[0-9a-f]{32}$/);
    assert.equal(body.from, agent.channels.sms!.address);
    assert.equal(body.to, CUSTOMER);
    assert.equal(body.channel, 'sms');
    assert.equal(typeof body.cost, 'number');
    const [recorded] = t.sim.messages({ channel: 'sms', to: CUSTOMER }).filter((m) => m.id === body.externalId);
    assert.ok(recorded, 'the simulator did not record the message');
    assert.equal(recorded.from, agent.channels.sms!.address);
    assert.equal(recorded.body, 'Your table is ready');
    assert.ok(recorded.statusCallback?.endsWith('/webhooks/sender/sms'));
  });

  it('sends WhatsApp with the whatsapp: addresses Twilio expects', async () => {
    // Free-form WhatsApp goes out within 24 hours of the person's last message (whatsapp-window.test.ts).
    assert.equal((await t.sim.inbound.whatsapp({ agentId: 'sender', from: CUSTOMER, to: agent.channels.whatsapp!.address, body: 'Hola?' })).status, 200);
    const res = await send({ channel: 'whatsapp', to: CUSTOMER, body: 'Hola' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { externalId: string; from: string };
    const recorded = t.sim.messages({ channel: 'whatsapp' }).find((m) => m.id === body.externalId);
    assert.equal(recorded?.to, `whatsapp:${CUSTOMER}`);
    assert.equal(recorded?.from, `whatsapp:${agent.channels.whatsapp!.address}`);
  });

  it('sends email with subject, text and html through Resend', async () => {
    const res = await send({ channel: 'email', to: 'ada@example.com', subject: 'Invoice', body: 'Plain text', html: '<p>Html</p>' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { externalId: string };
    const recorded = t.sim.messages({ provider: 'resend' }).find((m) => m.id === body.externalId);
    assert.equal(recorded?.subject, 'Invoice');
    assert.equal(recorded?.body, 'Plain text');
    assert.equal(recorded?.html, '<p>Html</p>');
    assert.equal(recorded?.to, 'ada@example.com');
    assert.ok(recorded?.from.includes(agent.channels.email!.address));
  });

  it('pushes a LINE message', async () => {
    const res = await send({ channel: 'line', to: LINE_USER, body: 'こんにちは' });
    assert.equal(res.status, 200);
    const recorded = t.sim.messages({ provider: 'line', to: LINE_USER });
    assert.equal(recorded.at(-1)?.body, 'こんにちは');
  });

  it('writes a message row and a usage row with a cost for every send', async () => {
    const res = await send({ channel: 'sms', to: CUSTOMER, body: 'metered' });
    const { messageId, externalId } = (await res.json()) as { messageId: string; externalId: string };
    const stored = await t.gateway.runtime.inspect.stored.message(messageId);
    assert.equal(stored?.externalId, externalId);
    const usage = (await t.gateway.runtime.inspect.stored.usage('sender')).find((u) => u.externalId === externalId);
    assert.ok(usage && usage.tariffCost > 0 && usage.action === 'message' && usage.quantity === 1);
  });

  it('delivery receipts from the provider update the stored status and cost', async () => {
    const res = await send({ channel: 'sms', to: CUSTOMER, body: 'track me' });
    const { messageId, externalId } = (await res.json()) as { messageId: string; externalId: string };
    const stored = await eventually(
      async () => {
        const stored = await t.gateway.runtime.inspect.stored.message(messageId);
        return stored?.status === 'delivered' && stored;
      },
      { intervalMs: 50, message: 'the message delivered' },
    );
    assert.ok((stored?.cost ?? 0) > 0, 'the price from the status callback is stored');
    const usage = (await t.gateway.runtime.inspect.stored.usage('sender')).find((u) => u.externalId === externalId);
    assert.equal(usage?.providerCost, stored?.cost);
  });

  it('validates per channel: email needs a subject, numbers must be E.164, voice is not a message channel', async () => {
    const noSubject = await send({ channel: 'email', to: 'a@example.com', body: 'x' });
    assert.equal(noSubject.status, 400);
    const badNumber = await send({ channel: 'sms', to: '555-1234', body: 'x' });
    assert.equal(badNumber.status, 400);
    assert.match(((await badNumber.json()) as { error: string }).error, /E\.164/);
    const voice = await send({ channel: 'voice', to: CUSTOMER, body: 'x' });
    assert.equal(voice.status, 400);
    assert.equal(t.sim.messages({ to: '555-1234' }).length, 0);
  });

  it('refuses a channel the agent does not hold with 409 CHANNEL_NOT_PROVISIONED', async () => {
    const other = await provisionAgent(t, 'sms-only', ['sms']);
    const res = await send({ channel: 'email', to: 'a@example.com', subject: 's', body: 'x' }, other.securityToken);
    assert.equal(res.status, 409);
    assert.equal(((await res.json()) as { code: string }).code, 'CHANNEL_NOT_PROVISIONED');
  });

  it('refuses a blocked channel with 403 CHANNEL_BLOCKED', async () => {
    const blocked = await provisionAgent(t, 'blocked-sender', ['sms']);
    await t.call('POST', '/admin/api/agents/blocked-sender/blocked-channels', { token: t.orchestratorToken, json: { blockedChannels: ['sms'] } });
    const res = await send({ channel: 'sms', to: CUSTOMER, body: 'x' }, blocked.securityToken);
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { code: string }).code, 'CHANNEL_BLOCKED');
  });

  it('a client token cannot send for another agent', async () => {
    const res = await send({ agentId: 'sms-only', channel: 'sms', to: CUSTOMER, body: 'x' });
    assert.equal(res.status, 403);
  });

  it('honours the Idempotency-Key: a repeat sends nothing again', async () => {
    const headers = { 'idempotency-key': 'send-once-42' };
    const before = t.sim.messages({ provider: 'twilio' }).length;
    const first = (await (await send({ channel: 'sms', to: CUSTOMER, body: 'once' }, agent.securityToken, headers)).json()) as { messageId: string };
    const again = (await (await send({ channel: 'sms', to: CUSTOMER, body: 'once' }, agent.securityToken, headers)).json()) as { messageId: string };
    assert.equal(again.messageId, first.messageId);
    assert.equal(t.sim.messages({ provider: 'twilio' }).length, before + 1);
  });

  it('a key whose send failed for good is free again; the same key at once from two callers sends once', async () => {
    t.sim.faults.add({ provider: 'twilio', status: 503, times: 3 });
    const headers = { 'idempotency-key': 'failed-then-free' };
    const failed = await send({ channel: 'sms', to: CUSTOMER, body: 'second chance' }, agent.securityToken, headers);
    assert.equal(failed.status, 502);
    const retried = await send({ channel: 'sms', to: CUSTOMER, body: 'second chance' }, agent.securityToken, headers);
    assert.equal(retried.status, 200, 'a key is not held by a send that failed');
    // Two gateways take the same key at the same moment (no gateway saw the other's request): the
    // claim stored with the message lets one send; the other is told to come back for the answer.
    const slot = { scope: 'test:concurrent', key: 'two-callers', requestHash: 'h' };
    const before = t.sim.messages({ provider: 'twilio' }).length;
    const request = { channel: 'sms' as const, to: CUSTOMER, body: 'from two callers', idempotency: slot };
    const outcomes = await Promise.allSettled([0, 1].map(() => t.gateway.runtime.inspect.agents.call('send', 'sender', request)));
    assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    assert.equal((refused.reason as { code: string }).code, 'CONFLICT');
    assert.equal(t.sim.messages({ provider: 'twilio' }).length, before + 1);
    const stored = (await t.gateway.runtime.inspect.stored.idempotent(slot.scope, slot.key))!;
    assert.equal(stored.status, 200);
    assert.equal((stored.body as { messageId: string }).messageId, ((outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ messageId: string }>).value).messageId);
  });

  it('retries provider 429 and 500, then succeeds', async () => {
    t.sim.faults.add({ provider: 'twilio', status: 429, times: 1 });
    t.sim.faults.add({ provider: 'twilio', status: 500, times: 1 });
    const res = await send({ channel: 'sms', to: CUSTOMER, body: 'after two failures' });
    assert.equal(res.status, 200);
  });

  it('a provider that keeps failing ends in 502 PROVIDER_ERROR and a send_failed dead letter', async () => {
    t.sim.faults.add({ provider: 'twilio', status: 503, times: 3 });
    const res = await send({ channel: 'sms', to: CUSTOMER, body: 'doomed' });
    assert.equal(res.status, 502);
    assert.equal(((await res.json()) as { code: string }).code, 'PROVIDER_ERROR');
    const waiting = (await (await t.call('GET', '/api/v1/waiting-messages', { token: agent.securityToken })).json()) as {
      messages: { reason: string; direction: string; body: string; attempts: number }[];
    };
    const letter = waiting.messages.find((m) => m.body === 'doomed');
    assert.equal(letter?.reason, 'send_failed');
    assert.equal(letter?.direction, 'outbound');
    assert.equal(letter?.attempts, 3);
  });

  it('a provider 4xx is not retried', async () => {
    t.sim.faults.add({ provider: 'resend', status: 422, times: 1 });
    const before = t.sim.requests('resend').length;
    const res = await send({ channel: 'email', to: 'a@example.com', subject: 's', body: 'refused' });
    assert.equal(res.status, 502);
    assert.equal(t.sim.requests('resend').length, before + 1);
    t.sim.faults.clear();
  });

  it('a provider time-out is retried and then dead-lettered', async () => {
    t.sim.faults.add({ provider: 'line', timeout: true, times: 3 });
    const started = Date.now();
    const res = await send({ channel: 'line', to: LINE_USER, body: 'slow' });
    t.sim.faults.clear();
    assert.equal(res.status, 502);
    assert.ok(Date.now() - started < 20_000);
  });

  it('channel-status reports each channel', async () => {
    const res = await t.call('GET', '/api/v1/channel-status', { token: agent.securityToken });
    const body = (await res.json()) as { agentId: string; channels: Record<string, { address: string | null; status: string; provider: string | null; messageCount: number }> };
    assert.equal(body.agentId, 'sender');
    assert.equal(body.channels.sms?.status, 'active');
    assert.equal(body.channels.sms?.provider, 'twilio');
    assert.ok((body.channels.sms?.messageCount ?? 0) > 0);
    assert.equal(body.channels.email?.provider, 'resend');
    assert.equal(body.channels.voice?.status, 'not_provisioned');
    assert.equal(body.channels.voice?.address, null);
  });
});
