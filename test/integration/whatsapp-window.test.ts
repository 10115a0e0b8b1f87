import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '@switchboard/runtime';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const NEVER_WROTE = '+14155550181';
const WRITES = '+14155550182';
const TEMPLATED = '+14155550183';

/** The time the gateway's agent operations read: the real time until the test moves it on. */
class MovableClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

interface Template {
  contentSid: string;
  name: string;
  language: string;
  category: string | null;
  body: string | null;
  variables: Record<string, string>;
}

describe("WhatsApp: the 24-hour customer service window, and templates outside it", () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  const clock = new MovableClock();

  const send = (json: Record<string, unknown>) => t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'whatsapp', ...json } });
  const read = async (path: string, token = agent.securityToken) => {
    const res = await t.call('GET', path, { token });
    return { status: res.status, body: (await res.json()) as any };
  };
  const sentTo = (person: string) => t.sim.messages({ provider: 'twilio', to: `whatsapp:${person}` });
  const templates = async () => (await read('/api/v1/whatsapp/templates')).body.templates as Template[];
  /** The stored status of a sent message, read from its conversation. */
  const statusOf = async (conversationId: string, messageId: string) => {
    const { body } = await read(`/api/v1/conversations/${conversationId}`);
    return (body.items as { id: string; status: string }[]).find((i) => i.id === messageId)?.status;
  };

  before(async () => {
    t = await startTestGateway({}, undefined, { clock });
    agent = await provisionAgent(t, 'wa-window', ['sms', 'whatsapp']);
  });
  after(() => t.close());

  it('lists the approved templates from the provider, and only to a caller with a token', async () => {
    const { status, body } = await read('/api/v1/whatsapp/templates');
    assert.equal(status, 200);
    assert.equal(body.provider, 'twilio');
    assert.deepEqual(
      (body.templates as Template[]).map((x) => [x.name, x.language, x.category]),
      [
        ['appointment_reminder', 'en', 'UTILITY'],
        ['order_update', 'en', 'UTILITY'],
      ],
      'the pending one is left out',
    );
    assert.equal(body.count, 2);
    for (const template of body.templates as Template[]) assert.match(template.contentSid, /^HX[0-9a-f]{32}$/);
    assert.match((body.templates as Template[])[0]!.body ?? '', /\{\{1\}\}/);
    assert.equal((await read('/api/v1/whatsapp/templates', t.teamToken)).status, 200, 'a team token needs no agent for it');
    assert.equal((await t.call('GET', '/api/v1/whatsapp/templates')).status, 401);
    assert.equal((await read('/api/v1/whatsapp/templates?agentId=wa-window')).status, 400, 'it takes no parameters');
  });

  it('refuses a free-form message to someone who never wrote, before the provider: 409 naming the window', async () => {
    const res = await send({ to: NEVER_WROTE, body: 'Are you there?' });
    const refused = (await res.json()) as { error: string; code: string; details: { open: boolean; closesAt: string | null }[] };
    assert.equal(res.status, 409);
    assert.equal(refused.code, 'WHATSAPP_WINDOW_CLOSED');
    assert.match(refused.error, /never written to this agent on WhatsApp/);
    assert.match(refused.error, /24-hour customer service window/);
    assert.match(refused.error, /template/);
    assert.deepEqual([refused.details[0]?.open, refused.details[0]?.closesAt], [false, null]);
    assert.equal(sentTo(NEVER_WROTE).length, 0, 'nothing reached the provider');
  });

  it('sends a template outside the window, by Content SID or by name, and it is delivered', async () => {
    const [reminder, order] = await templates();
    const res = await send({ to: TEMPLATED, template: { contentSid: reminder!.contentSid, variables: { 1: 'Sam', 2: 'Friday at 9:00' } } });
    assert.equal(res.status, 200, await res.clone().text());
    const sent = (await res.json()) as { messageId: string; externalId: string };
    const [atProvider] = sentTo(TEMPLATED);
    assert.deepEqual([atProvider?.id, atProvider?.contentSid, atProvider?.contentVariables], [sent.externalId, reminder!.contentSid, { 1: 'Sam', 2: 'Friday at 9:00' }]);
    assert.equal(atProvider?.body, 'Hello Sam, this is a reminder of your appointment on Friday at 9:00. Reply here to confirm or change it.');

    const byName = await send({ to: TEMPLATED, template: { name: 'order_update', language: 'en', variables: { 1: '#1042' } } });
    assert.equal(byName.status, 200);
    assert.equal(sentTo(TEMPLATED)[1]?.contentSid, order!.contentSid);

    const conversationId = ((await read('/api/v1/conversations')).body.conversations as { conversationId: string; counterparts: { address: string }[] }[]).find((c) =>
      c.counterparts.some((p) => p.address === TEMPLATED),
    )!.conversationId;
    await eventually(async () => (await statusOf(conversationId, sent.messageId)) === 'delivered', { message: 'the template send to be delivered' });
    const conversation = (await read(`/api/v1/conversations/${conversationId}`)).body;
    assert.deepEqual(conversation.serviceWindow, { channel: 'whatsapp', open: false, closesAt: null, lastInboundAt: null });
    assert.equal(conversation.items.find((i: { id: string }) => i.id === sent.messageId).body, atProvider?.body, 'the record keeps the text the provider rendered');
  });

  it('after the person writes, free-form goes out; the inbox entry and the conversation say until when', async () => {
    assert.equal((await t.sim.inbound.whatsapp({ agentId: 'wa-window', from: WRITES, to: agent.channels.whatsapp!.address, body: 'Hi, can you help?' })).status, 200);
    const entries = (await read('/api/v1/inbox?after=0&limit=100')).body.entries as { type: string; channel: string; conversationId: string; payload: any }[];
    const received = entries.find((e) => e.type === 'message.received' && e.payload.body === 'Hi, can you help?')!;
    assert.equal(received.channel, 'whatsapp');
    assert.equal(received.payload.serviceWindow.closesAt, new Date(Date.parse(received.payload.receivedAt) + DAY_MS).toISOString());

    const res = await send({ to: WRITES, body: 'Of course, what do you need?' });
    assert.equal(res.status, 200, await res.clone().text());
    const sent = (await res.json()) as { messageId: string };
    assert.equal(sentTo(WRITES)[0]?.body, 'Of course, what do you need?');
    await eventually(async () => (await statusOf(received.conversationId, sent.messageId)) === 'delivered', { message: 'the free-form reply to be delivered' });

    const conversation = (await read(`/api/v1/conversations/${received.conversationId}`)).body;
    assert.deepEqual(conversation.serviceWindow, { channel: 'whatsapp', open: true, closesAt: received.payload.serviceWindow.closesAt, lastInboundAt: received.payload.receivedAt });
    const mcp = await connectMcp(t.url, 'streamable', agent.securityToken, 'wa-window');
    try {
      const overMcp = await mcp.call('comms_get_conversation', { conversationId: received.conversationId });
      assert.deepEqual([overMcp.isError, (overMcp.body.serviceWindow as { open: boolean }).open], [false, true]);
      const template = await mcp.call('comms_send_message', { channel: 'whatsapp', to: NEVER_WROTE, template: { name: 'order_update', variables: { 1: '#7' } } });
      assert.equal(template.isError, false, JSON.stringify(template.body));
    } finally {
      await mcp.close();
    }
  });

  it('closes 24 hours after the last message (moved clocks): free-form is refused with when it closed, a template still goes', async () => {
    const conversationId = ((await read('/api/v1/inbox?after=0&limit=100')).body.entries as { payload: { body?: string }; conversationId: string }[]).find(
      (e) => e.payload.body === 'Hi, can you help?',
    )!.conversationId;
    const { closesAt } = (await read(`/api/v1/conversations/${conversationId}`)).body.serviceWindow as { closesAt: string };
    // Switchboard's clock and the provider's, a day and a minute on.
    clock.offsetMs = DAY_MS + 60_000;
    t.sim.clock.advance(DAY_MS + 60_000);
    const before = sentTo(WRITES).length;
    const res = await send({ to: WRITES, body: 'Still there?' });
    const refused = (await res.json()) as { error: string; code: string };
    assert.deepEqual([res.status, refused.code], [409, 'WHATSAPP_WINDOW_CLOSED']);
    assert.match(refused.error, new RegExp(`closed at ${closesAt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(refused.error, /send an approved template/);
    assert.equal(sentTo(WRITES).length, before, 'nothing reached the provider');
    assert.equal(((await read(`/api/v1/conversations/${conversationId}`)).body.serviceWindow as { open: boolean }).open, false);

    const [reminder] = await templates();
    const templated = await send({ to: WRITES, template: { contentSid: reminder!.contentSid, variables: { 1: 'Sam', 2: 'Monday' } } });
    assert.equal(templated.status, 200);
    assert.equal(sentTo(WRITES).at(-1)?.contentSid, reminder!.contentSid);
  });

  it('bad input gets the contract error and sends nothing', async () => {
    const [reminder] = await templates();
    const before = t.sim.messages().length;
    for (const [json, code] of [
      [{ to: TEMPLATED, body: 'text', template: { contentSid: reminder!.contentSid } }, 'VALIDATION_FAILED'],
      [{ to: TEMPLATED }, 'VALIDATION_FAILED'],
      [{ to: TEMPLATED, template: { language: 'en' } }, 'VALIDATION_FAILED'],
      [{ to: TEMPLATED, template: { contentSid: 'HX123' } }, 'VALIDATION_FAILED'],
      [{ to: TEMPLATED, template: { contentSid: reminder!.contentSid, variables: { 1: 5 } } }, 'VALIDATION_FAILED'],
      [{ to: TEMPLATED, template: { contentSid: reminder!.contentSid, extra: true } }, 'BAD_REQUEST'],
      [{ channel: 'sms', to: TEMPLATED, template: { contentSid: reminder!.contentSid } }, 'VALIDATION_FAILED'],
    ] as const) {
      const res = await send(json);
      const body = (await res.json()) as { code: string; error: string };
      assert.deepEqual([res.status, body.code], [400, code], `${JSON.stringify(json)}: ${body.error}`);
    }
    assert.equal(t.sim.messages().length, before);
  });
});
