import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550177';
const OTHER = '+14155550188';

interface Entry {
  cursor: number;
  id: string;
  type: 'message.received' | 'message.status';
  agentId: string;
  channel: string;
  counterpart: string;
  conversationId: string;
  messageId: string;
  status: string | null;
  payload: Record<string, unknown>;
  createdAt: string;
}
interface Page {
  agentId: string;
  entries: Entry[];
  nextCursor: number;
  hasMore: boolean;
  ackedCursor: number;
  lastCursor: number;
}

describe("the agent's inbox: entries stored with each event, read from a cursor, acknowledged", () => {
  let t: TestGateway;
  let a: Awaited<ReturnType<typeof provisionAgent>>;
  let b: Awaited<ReturnType<typeof provisionAgent>>;

  before(async () => {
    t = await startTestGateway();
    a = await provisionAgent(t, 'inbox-a', ['sms', 'whatsapp', 'email']);
    b = await provisionAgent(t, 'inbox-b', ['sms']);
  });
  after(() => t.close());

  const read = async (query = '', token = a.securityToken): Promise<Page> => {
    const res = await t.call('GET', `/api/v1/inbox${query}`, { token });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as Page;
  };
  const ack = (json: unknown, token = a.securityToken) => t.call('POST', '/api/v1/inbox/ack', { token, json });
  /** Reads from 0 until `done` holds (status callbacks arrive after the send answers). */
  const readUntil = async (done: (entries: Entry[]) => boolean, query = '', token = a.securityToken): Promise<Entry[]> => {
    let entries: Entry[] = [];
    // On time-out the last read goes back all the same: the caller's assertion says what is missing.
    await eventually(async () => done((entries = (await read(`?after=0&limit=500${query}`, token)).entries)), { timeoutMs: 15_000, intervalMs: 100 }).catch(() => undefined);
    return entries;
  };

  it('each signed inbound message is an entry, in order, with strictly increasing cursors; a replay adds none', async () => {
    const sms = await t.sim.inbound.sms({ agentId: 'inbox-a', from: CUSTOMER, to: a.channels.sms!.address, body: 'one', messageSid: 'SM' + '1'.repeat(32) });
    assert.equal(sms.status, 200);
    // The 200 means the entry is stored: it is readable at once.
    const first = await read();
    assert.deepEqual(first.entries.map((e) => e.payload.body), ['one']);
    const replay = await t.sim.inbound.sms({ agentId: 'inbox-a', from: CUSTOMER, to: a.channels.sms!.address, body: 'one', messageSid: 'SM' + '1'.repeat(32) });
    assert.equal(replay.status, 200);
    assert.equal((await t.sim.inbound.whatsapp({ agentId: 'inbox-a', from: CUSTOMER, to: a.channels.whatsapp!.address, body: 'two' })).status, 200);
    assert.equal((await t.sim.inbound.email({ agentId: 'inbox-a', from: 'ada@example.com', to: a.channels.email!.address, subject: 'Hi', text: 'three' })).status, 200);
    assert.equal((await t.sim.inbound.sms({ agentId: 'inbox-b', from: OTHER, to: b.channels.sms!.address, body: 'for b only' })).status, 200);

    const page = await read();
    assert.deepEqual(page.entries.map((e) => e.payload.body), ['one', 'two', 'three'], 'the replay added nothing, b’s message is not here');
    assert.deepEqual(page.entries.map((e) => e.channel), ['sms', 'whatsapp', 'email']);
    const cursors = page.entries.map((e) => e.cursor);
    assert.ok(cursors.every((c, i) => i === 0 || c > cursors[i - 1]!), `strictly increasing: ${cursors}`);
    assert.ok(page.entries.every((e) => e.agentId === 'inbox-a' && e.type === 'message.received' && e.status === 'received'));
    const [sms1, wa, mail] = page.entries as [Entry, Entry, Entry];
    assert.equal(sms1.counterpart, CUSTOMER);
    assert.equal(wa.counterpart, CUSTOMER, 'the whatsapp: prefix is not part of the counterpart');
    assert.equal(sms1.conversationId, wa.conversationId, 'SMS and WhatsApp from one number are one conversation');
    assert.notEqual(mail.conversationId, sms1.conversationId);
    assert.match(sms1.conversationId, /^cnv_/);
    assert.equal(mail.payload.subject, 'Hi');
    assert.equal(mail.payload.from, 'ada@example.com');
    assert.equal(sms1.payload.externalId, 'SM' + '1'.repeat(32));
    assert.equal(page.ackedCursor, 0);
    assert.equal(page.lastCursor, mail.cursor);
    assert.equal(page.nextCursor, mail.cursor);
    assert.equal(page.hasMore, false);

    const other = await read('', b.securityToken);
    assert.deepEqual(other.entries.map((e) => [e.agentId, e.payload.body]), [['inbox-b', 'for b only']]);
  });

  it('reading is idempotent and pages by cursor; acknowledging moves the durable cursor, never back', async () => {
    const once = await read();
    const twice = await read();
    assert.deepEqual(twice, once);
    const [e1, e2, e3] = once.entries as [Entry, Entry, Entry];

    const page1 = await read('?limit=2');
    assert.deepEqual(page1.entries.map((e) => e.cursor), [e1.cursor, e2.cursor]);
    assert.equal(page1.hasMore, true);
    assert.equal(page1.nextCursor, e2.cursor);
    const page2 = await read(`?after=${page1.nextCursor}&limit=2`);
    assert.deepEqual(page2.entries.map((e) => e.cursor), [e3.cursor]);
    assert.equal(page2.hasMore, false);

    const acked = await ack({ upTo: e2.cursor });
    assert.equal(acked.status, 200);
    assert.deepEqual(await acked.json(), { agentId: 'inbox-a', ackedCursor: e2.cursor, lastCursor: e3.cursor });
    const unacked = await read();
    assert.deepEqual(unacked.entries.map((e) => e.cursor), [e3.cursor], 'what is not acknowledged comes back');
    assert.equal(unacked.ackedCursor, e2.cursor);
    assert.deepEqual(await read(), unacked, 'and again');

    const back = await ack({ upTo: e1.cursor });
    assert.equal(back.status, 200);
    assert.equal(((await back.json()) as { ackedCursor: number }).ackedCursor, e2.cursor, 'an older cursor does not move it back');
    assert.deepEqual((await read('?after=0')).entries.map((e) => e.cursor), [e1.cursor, e2.cursor, e3.cursor], 'acknowledged entries stay readable by cursor');
    assert.deepEqual((await read()).entries.map((e) => e.cursor), [e3.cursor]);
  });

  it("an outbound message's status changes land in order: queued, sent, delivered; filters by conversation and channel", async () => {
    const sent = await t.call('POST', '/api/v1/send-message', { token: a.securityToken, json: { channel: 'sms', to: CUSTOMER, body: 'on our way' } });
    assert.equal(sent.status, 200);
    const { messageId, externalId } = (await sent.json()) as { messageId: string; externalId: string };
    const statusesOf = (entries: Entry[]) => entries.filter((e) => e.messageId === messageId).map((e) => e.status);
    const entries = await readUntil((all) => statusesOf(all).includes('delivered'));
    // `sent` may be missing: a receipt that overtakes the commit of the provider's answer is not applied (as before the inbox).
    const statuses = statusesOf(entries);
    assert.ok(['queued,sent,delivered', 'queued,delivered'].includes(statuses.join()), `statuses in order, each once: ${statuses}`);
    const statusEntries = entries.filter((e) => e.messageId === messageId);
    assert.ok(statusEntries.every((e) => e.type === 'message.status' && e.counterpart === CUSTOMER && e.channel === 'sms'));
    assert.equal(statusEntries.at(-1)!.payload.externalId, externalId);
    assert.equal(typeof statusEntries.at(-1)!.payload.cost, 'number', 'the receipt’s price is in the entry');

    const conversation = entries[0]!.conversationId;
    const inConversation = await read(`?after=0&conversationId=${conversation}`);
    assert.equal(inConversation.entries.length, 2 + statuses.length, 'the two inbound messages and the statuses');
    assert.ok(inConversation.entries.every((e) => e.conversationId === conversation));
    assert.ok(inConversation.entries.some((e) => e.type === 'message.received') && inConversation.entries.some((e) => e.type === 'message.status'));
    const emails = await read('?after=0&channel=email');
    assert.deepEqual(emails.entries.map((e) => e.payload.body), ['three']);
    assert.equal(emails.nextCursor, emails.lastCursor, 'a filtered read that found everything moves past what it skipped');
  });

  it('a send the provider refuses for good leaves queued then failed, with the reason', async () => {
    t.sim.faults.add({ provider: 'twilio', status: 503, times: 3 });
    const res = await t.call('POST', '/api/v1/send-message', { token: a.securityToken, json: { channel: 'sms', to: OTHER, body: 'will fail' } });
    assert.equal(res.status, 502, await res.clone().text());
    const entries = await readUntil((all) => all.some((e) => e.counterpart === OTHER && e.status === 'failed'));
    const mine = entries.filter((e) => e.counterpart === OTHER);
    assert.deepEqual(mine.map((e) => e.status), ['queued', 'failed']);
    assert.equal(typeof mine[1]!.payload.error, 'string');
    assert.equal(new Set(mine.map((e) => e.messageId)).size, 1);
  });

  it('bad input gets the contract error; another agent’s inbox is refused to a client token', async () => {
    const expect = async (res: Response, status: number, code: string) => {
      const body = (await res.json()) as { error: string; code: string };
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(body.code, code);
      assert.ok(body.error.length > 0);
    };
    const get = (query: string, token = a.securityToken) => t.call('GET', `/api/v1/inbox${query}`, { token });
    const { lastCursor } = await read();
    await expect(await get('?after=-1'), 400, 'VALIDATION_FAILED');
    await expect(await get('?after=abc'), 400, 'VALIDATION_FAILED');
    await expect(await get(`?after=${lastCursor + 1000}`), 400, 'VALIDATION_FAILED');
    await expect(await get('?limit=0'), 400, 'VALIDATION_FAILED');
    await expect(await get('?limit=501'), 400, 'VALIDATION_FAILED');
    await expect(await get('?channel=fax'), 400, 'VALIDATION_FAILED');
    await expect(await get('?conversationId=nope'), 400, 'VALIDATION_FAILED');
    await expect(await get('?cursor=1'), 400, 'BAD_REQUEST');
    await expect(await get('?agentId=inbox-b'), 403, 'FORBIDDEN');
    await expect(await get('', 'not-a-token'), 401, 'UNAUTHORIZED');
    await expect(await get('', t.teamToken), 400, 'VALIDATION_FAILED');
    await expect(await ack({ upTo: lastCursor + 1 }), 400, 'VALIDATION_FAILED');
    await expect(await ack({ upTo: -1 }), 400, 'VALIDATION_FAILED');
    await expect(await ack({}), 400, 'VALIDATION_FAILED');
    await expect(await ack({ upTo: 1, extra: true }), 400, 'BAD_REQUEST');
    await expect(await ack({ upTo: 1, agentId: 'inbox-b' }), 403, 'FORBIDDEN');
    assert.equal((await read()).lastCursor, lastCursor, 'nothing refused moved anything');

    // A team token names the agent and reads only that agent's entries.
    const asTeam = await read('?agentId=inbox-b', t.teamToken);
    assert.ok(asTeam.entries.length > 0 && asTeam.entries.every((e) => e.agentId === 'inbox-b'));
    const teamAck = await ack({ agentId: 'inbox-b', upTo: asTeam.lastCursor }, t.teamToken);
    assert.equal(teamAck.status, 200);
    assert.equal((await read('', b.securityToken)).entries.length, 0, "b's acknowledged cursor moved; a's did not");
    assert.ok((await read()).entries.length > 0);
  });

  it('the MCP tools comms_inbox_read and comms_inbox_ack are the same inbox', async () => {
    const mcp = await connectMcp(t.url, 'streamable', a.securityToken, 'inbox-a');
    try {
      const rest = await read();
      const viaTool = await mcp.call('comms_inbox_read', {});
      assert.equal(viaTool.isError, false);
      assert.deepEqual(viaTool.body, rest);
      const acked = await mcp.call('comms_inbox_ack', { upTo: rest.lastCursor });
      assert.equal(acked.isError, false);
      assert.equal(acked.body.ackedCursor, rest.lastCursor);
      assert.deepEqual((await read()).entries, []);
      const refused = await mcp.call('comms_inbox_read', { after: -5 });
      assert.equal(refused.isError, true);
      assert.equal(refused.body.code, 'VALIDATION_FAILED');
    } finally {
      await mcp.close();
    }
  });
});
