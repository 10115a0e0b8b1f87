import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';

const CUSTOMER = '+14155550161';
const EMAIL = 'Ada@Example.com';

interface Summary {
  conversationId: string;
  counterparts: { channel: string; address: string }[];
  messages: number;
  calls: number;
}
interface Item {
  kind: string;
  id: string;
  channel: string;
  direction: string;
  body?: string;
}

describe('conversations: one agent and one counterpart across channels, linked by the agent, with their timeline', () => {
  let t: TestGateway;
  let a: Awaited<ReturnType<typeof provisionAgent>>;
  let b: Awaited<ReturnType<typeof provisionAgent>>;

  const get = async (path: string, token = a.securityToken) => {
    const res = await t.call('GET', path, { token });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const conversationIdsOf = async (bodies: string[]) => {
    const { body } = await get('/api/v1/inbox?after=0&limit=500');
    const entries = body.entries as { conversationId: string; payload: { body?: string } }[];
    return bodies.map((text) => entries.find((e) => e.payload.body === text)?.conversationId);
  };

  before(async () => {
    t = await startTestGateway();
    a = await provisionAgent(t, 'conv-a', ['sms', 'whatsapp', 'email']);
    b = await provisionAgent(t, 'conv-b', ['sms']);
    assert.equal((await t.sim.inbound.sms({ agentId: 'conv-a', from: CUSTOMER, to: a.channels.sms!.address, body: 'sms in' })).status, 200);
    const sent = await t.call('POST', '/api/v1/send-message', { token: a.securityToken, json: { channel: 'sms', to: CUSTOMER, body: 'sms out' } });
    assert.equal(sent.status, 200, await sent.clone().text());
    assert.equal((await t.sim.inbound.whatsapp({ agentId: 'conv-a', from: CUSTOMER, to: a.channels.whatsapp!.address, body: 'whatsapp in' })).status, 200);
    assert.equal((await t.sim.inbound.email({ agentId: 'conv-a', from: EMAIL, to: a.channels.email!.address, subject: 'Hi', text: 'email in' })).status, 200);
    assert.equal((await t.sim.inbound.sms({ agentId: 'conv-b', from: CUSTOMER, to: b.channels.sms!.address, body: 'for b' })).status, 200);
  });
  after(() => t.close());

  it('a number is one conversation on SMS and WhatsApp; an email address is another; the inbox names the same ids', async () => {
    const { status, body } = await get('/api/v1/conversations');
    assert.equal(status, 200, JSON.stringify(body));
    const list = body.conversations as Summary[];
    assert.equal(list.length, 2, JSON.stringify(list));
    assert.deepEqual(list[0]!.counterparts.map((c) => [c.channel, c.address]), [['email', EMAIL]], 'the email came last');
    assert.deepEqual(new Set(list[1]!.counterparts.map((c) => c.channel)), new Set(['sms', 'whatsapp']));
    assert.equal(list[1]!.messages, 3);
    const [smsIn, whatsappIn, emailIn] = await conversationIdsOf(['sms in', 'whatsapp in', 'email in']);
    assert.equal(smsIn, list[1]!.conversationId);
    assert.equal(whatsappIn, list[1]!.conversationId);
    assert.equal(emailIn, list[0]!.conversationId);

    const timeline = await get(`/api/v1/conversations/${list[1]!.conversationId}`);
    assert.equal(timeline.status, 200);
    assert.deepEqual(
      (timeline.body.items as Item[]).map((i) => [i.kind, i.channel, i.direction, i.body]),
      [
        ['message', 'whatsapp', 'inbound', 'whatsapp in'],
        ['message', 'sms', 'outbound', 'sms out'],
        ['message', 'sms', 'inbound', 'sms in'],
      ],
    );
    // Pages: one item at a time, newest first, to the end.
    const first = await get(`/api/v1/conversations/${list[1]!.conversationId}?limit=2`);
    const rest = await get(`/api/v1/conversations/${list[1]!.conversationId}?limit=2&cursor=${first.body.nextCursor as string}`);
    assert.deepEqual([...(first.body.items as Item[]), ...(rest.body.items as Item[])].map((i) => i.body), ['whatsapp in', 'sms out', 'sms in']);
    assert.equal(rest.body.nextCursor, null);
  });

  it('linking the email address into the number makes one conversation, found by either id, its history included', async () => {
    const [numberId, emailId] = await conversationIdsOf(['sms in', 'email in']);
    const linked = await t.call('POST', '/api/v1/link-contacts', { token: a.securityToken, json: { addresses: [CUSTOMER, EMAIL] } });
    assert.equal(linked.status, 200, await linked.clone().text());
    assert.deepEqual(await linked.json(), { agentId: 'conv-a', conversationId: numberId, linkedAddresses: ['ada@example.com'] });

    const list = (await get('/api/v1/conversations')).body.conversations as Summary[];
    assert.equal(list.length, 1);
    assert.deepEqual(new Set(list[0]!.counterparts.map((c) => c.channel)), new Set(['sms', 'whatsapp', 'email']));
    for (const id of [numberId, emailId]) {
      const { status, body } = await get(`/api/v1/conversations/${id}`);
      assert.equal(status, 200);
      assert.equal(body.conversationId, numberId, 'the linked id leads to the conversation it joined');
      assert.deepEqual((body.items as Item[]).map((i) => i.body), ['email in', 'whatsapp in', 'sms out', 'sms in']);
    }
    // The inbox read by conversation, and a wait for a reply, take the linked address in too.
    const byConversation = (await get(`/api/v1/inbox?after=0&conversationId=${numberId}`)).body.entries as { cursor: number; payload: { body?: string } }[];
    assert.deepEqual(byConversation.filter((e) => e.payload.body).map((e) => e.payload.body), ['sms in', 'whatsapp in', 'email in']);
    const beforeEmail = byConversation.find((e) => e.payload.body === 'whatsapp in')!.cursor;
    const reply = await get(`/api/v1/conversations/${numberId}/reply?after=${beforeEmail}`);
    assert.equal((reply.body.reply as { payload: { body: string } } | null)?.payload.body, 'email in', JSON.stringify(reply.body));
    // Linking again changes nothing; linking in the other order keeps the conversation it joined.
    const again = await t.call('POST', '/api/v1/link-contacts', { token: a.securityToken, json: { addresses: [EMAIL, CUSTOMER] } });
    assert.equal(((await again.json()) as { conversationId: string }).conversationId, numberId);
  });

  it("another agent's conversation is not found; bad input gets the contract error", async () => {
    const [numberId] = await conversationIdsOf(['sms in']);
    const other = await get(`/api/v1/conversations/${numberId}`, b.securityToken);
    assert.deepEqual([other.status, other.body.code], [404, 'NOT_FOUND']);
    const forbidden = await get('/api/v1/conversations?agentId=conv-a', b.securityToken);
    assert.deepEqual([forbidden.status, forbidden.body.code], [403, 'FORBIDDEN']);
    const badId = await get('/api/v1/conversations/not-a-conversation');
    assert.deepEqual([badId.status, badId.body.code], [400, 'VALIDATION_FAILED']);
    const badCursor = await get(`/api/v1/conversations?cursor=garbage`);
    assert.deepEqual([badCursor.status, badCursor.body.code], [400, 'VALIDATION_FAILED']);
    const bad: [unknown, string][] = [
      [{ addresses: [CUSTOMER] }, 'VALIDATION_FAILED'],
      [{ addresses: [CUSTOMER, ' '] }, 'VALIDATION_FAILED'],
      [{ addresses: 'x' }, 'VALIDATION_FAILED'],
      [{ addresses: [CUSTOMER, EMAIL], extra: 1 }, 'BAD_REQUEST'],
    ];
    for (const [json, code] of bad) {
      const res = await t.call('POST', '/api/v1/link-contacts', { token: a.securityToken, json });
      assert.deepEqual([res.status, ((await res.json()) as { code: string }).code], [400, code], JSON.stringify(json));
    }
    assert.equal((await get('/api/v1/conversations', b.securityToken)).status, 200);
  });

  it('the MCP tools are the same conversations', async () => {
    const mcp = await connectMcp(t.url, 'streamable', a.securityToken, 'conv-a');
    try {
      const listed = await mcp.call('comms_list_conversations', {});
      const conversations = listed.body.conversations as Summary[];
      assert.deepEqual([listed.isError, conversations.length], [false, 1]);
      const one = await mcp.call('comms_get_conversation', { conversationId: conversations[0]!.conversationId });
      assert.equal((one.body.items as Item[]).length, 4);
    } finally {
      await mcp.close();
    }
  });

  it('a send names the conversation instead of the recipient: the channel it last used, or the one named; an email reply keeps the subject', async () => {
    const [numberId] = await conversationIdsOf(['sms in']);
    const send = (json: Record<string, unknown>) => t.call('POST', '/api/v1/send-message', { token: a.securityToken, json: { body: 'reply', ...json } });
    const answer = async (json: Record<string, unknown>) => {
      const res = await send(json);
      return { status: res.status, body: (await res.json()) as { channel: string; to: string; messageId: string; code?: string } };
    };
    // The conversation last used email (the linked address wrote last).
    const last = await answer({ conversationId: numberId });
    assert.deepEqual([last.status, last.body.channel, last.body.to], [200, 'email', EMAIL]);
    const sms = await answer({ conversationId: numberId, channel: 'sms' });
    assert.deepEqual([sms.status, sms.body.channel, sms.body.to], [200, 'sms', CUSTOMER]);
    const email = t.sim.messages({ provider: 'resend' }).at(-1);
    assert.deepEqual([email?.to.toLowerCase(), email?.subject], [EMAIL.toLowerCase(), 'Re: Hi'], 'the reply went to the provider with the subject it answers');
    // It threads in the recipient's mail client: In-Reply-To names the email it answers, as References does.
    const inReplyTo = email?.headers?.['In-Reply-To'] ?? '';
    assert.match(inReplyTo, /^<[^<>\s]+@example\.com>$/i, JSON.stringify(email?.headers));
    assert.equal(email?.headers?.References, inReplyTo);
    const line = await answer({ conversationId: numberId, channel: 'line' });
    assert.deepEqual([line.status, line.body.code], [400, 'VALIDATION_FAILED']);
    const unknown = await answer({ conversationId: 'cnv_unknownconversation00' });
    assert.deepEqual([unknown.status, unknown.body.code], [404, 'NOT_FOUND']);
    for (const json of [{ conversationId: numberId, to: CUSTOMER, channel: 'sms' }, { channel: 'sms' }, { to: CUSTOMER }]) {
      const res = await answer(json);
      assert.deepEqual([res.status, res.body.code], [400, 'VALIDATION_FAILED'], JSON.stringify(json));
    }
    // Both replies are in the conversation's timeline.
    const { body } = await get(`/api/v1/conversations/${numberId}`);
    assert.deepEqual((body.items as Item[]).slice(0, 2).map((i) => [i.channel, i.direction, i.body]), [['sms', 'outbound', 'reply'], ['email', 'outbound', 'reply']]);
  });

  it('the list pages through many conversations, each once, newest activity first, with a conversation that moves meanwhile', async () => {
    const many = await provisionAgent(t, 'conv-many', ['sms']);
    const senders = Array.from({ length: 150 }, (_, i) => `+1415556${String(i).padStart(4, '0')}`);
    for (let i = 0; i < senders.length; i += 10) {
      const batch = senders.slice(i, i + 10).map((from) => t.sim.inbound.sms({ agentId: 'conv-many', from, to: many.channels.sms!.address, body: `hi from ${from}` }));
      for (const res of await Promise.all(batch)) assert.equal(res.status, 200);
    }
    const pageOf = async (cursor?: string) => {
      const { status, body } = await get(`/api/v1/conversations?limit=7${cursor ? `&cursor=${cursor}` : ''}`, many.securityToken);
      assert.equal(status, 200, JSON.stringify(body));
      return body as { conversations: (Summary & { lastActivityAt: string })[]; nextCursor: string | null };
    };
    const seen: (Summary & { lastActivityAt: string })[] = [];
    let mover = '';
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await pageOf(cursor);
      assert.ok(page.conversations.length <= 7);
      seen.push(...page.conversations);
      cursor = page.nextCursor ?? undefined;
      pages++;
      // Halfway, the first page's last conversation writes again: it moves to the front, behind the cursor, and is not listed twice.
      if (pages === 10) {
        mover = seen[6]!.counterparts[0]!.address;
        const res = await t.sim.inbound.sms({ agentId: 'conv-many', from: mover, to: many.channels.sms!.address, body: 'again' });
        assert.equal(res.status, 200);
      }
    } while (cursor);
    assert.equal(pages, Math.ceil(150 / 7));
    assert.equal(new Set(seen.map((c) => c.conversationId)).size, 150, 'each conversation once');
    assert.deepEqual(new Set(seen.flatMap((c) => c.counterparts.map((p) => p.address))), new Set(senders), 'every sender, none missed');
    for (const [i, c] of seen.entries()) {
      assert.deepEqual([c.messages, c.calls, c.counterparts.length], [1, 0, 1], 'as it was when its page was read');
      const next = seen[i + 1];
      if (next) assert.ok(c.lastActivityAt > next.lastActivityAt || (c.lastActivityAt === next.lastActivityAt && c.conversationId > next.conversationId), `ordered at ${i}`);
    }
    const front = (await pageOf()).conversations[0]!;
    assert.deepEqual([front.counterparts[0]!.address, front.messages], [mover, 2], 'the conversation that wrote again leads the list');
  });
});
