import assert from 'node:assert/strict';
import { it } from 'node:test';
import { receivedEntry, statusEntry } from '../inbox/entries.js';
import { conversationIdOf } from '../protocol/conversations.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';
import { SUMMARIES_FROM_ROWS } from '../store/migrations/019-conversation-summaries.js';
import { inbound, type WithNodes } from './conformance-nodes.js';

/**
 * The database conformance cases of what an agent reads back: its inbox cursors, conversations and
 * their summaries, replies, tasks and the callback log, registered inside `describeDatabaseConformance`.
 */
export function describeAgentRecordCases(withNodes: WithNodes): void {
  it('inbox cursors: concurrent events of one agent on two nodes get distinct cursors 1..n, each only with its message', async () => {
    await withNodes(2, async (stores) => {
      const now = new Date().toISOString();
      const appendWith = (s: Store, message: MessageRecord) =>
        s.db.executeAll([s.messages.insertInboundStatement(message), s.inbox.appendStatement(receivedEntry(message))]);
      const messages = Array.from({ length: 40 }, (_, i) => inbound(i % 4 === 3 ? 'inbox-2' : 'inbox-1', `SMI${i}`, now));
      await Promise.all(messages.map((m, i) => appendWith(stores[i % 2]!, m)));
      const [first, second] = stores as [Store, Store];
      const entries = await first.inbox.read('inbox-1', 0, 500);
      assert.deepEqual(entries.map((e) => e.cursor), Array.from({ length: 30 }, (_, i) => i + 1), 'no cursor twice, none skipped');
      assert.deepEqual(new Set(entries.map((e) => e.messageId)), new Set(messages.filter((m) => m.agentId === 'inbox-1').map((m) => m.id)));
      assert.equal((await second.inbox.read('inbox-2', 0, 500)).length, 10, 'cursors are per agent');
      assert.deepEqual(await second.inbox.position('inbox-2'), { lastCursor: 10, ackedCursor: 0 });

      const [replay] = await appendWith(first, { ...messages[0]!, id: 'msg-replayed' });
      assert.equal(replay!.changes, 0);
      assert.equal((await first.inbox.position('inbox-1')).lastCursor, 30, 'a provider retry takes no cursor and leaves no entry');

      assert.equal(await first.inbox.acknowledge('inbox-1', 31), false, 'past the last cursor');
      assert.equal(await first.inbox.acknowledge('inbox-1', 12), true);
      assert.equal(await second.inbox.acknowledge('inbox-1', 5), true);
      assert.deepEqual(await first.inbox.position('inbox-1'), { lastCursor: 30, ackedCursor: 12 }, 'never back');
      assert.equal(await first.inbox.sweepAcknowledged(new Date(Date.now() - 60_000)), 0, 'younger than the retention');
      assert.equal(await first.inbox.sweepAcknowledged(new Date(Date.now() + 60_000)), 12, 'only acknowledged entries go');
      assert.deepEqual((await first.inbox.read('inbox-1', 0, 500)).map((e) => e.cursor)[0], 13);
      assert.equal((await first.inbox.read('inbox-2', 0, 500)).length, 10);
    });
  });

  it('conversations: older rows named by the backfill, links followed both ways, a timeline across messages and calls', async () => {
    await withNodes(2, async ([first, second]) => {
      const at = (s: number) => new Date(Date.parse('2026-05-01T00:00:00Z') + s * 1000).toISOString();
      const message = (id: string, from: string, createdAt: string) => ({
        id, agentId: 'conv-1', channel: 'sms' as const, direction: 'inbound' as const, from, to: '+15550000001', subject: null, body: id, html: null,
        mediaUrls: [], externalId: id, status: 'received' as const, segments: 1, cost: null, error: null, delivery: 'done' as const, createdAt, updatedAt: createdAt,
      });
      await first!.messages.insert(message('m1', '+15550000002', at(1)));
      await first!.messages.insert(message('m2', 'ada@example.com', at(2)));
      // A row stored before conversations existed.
      await first!.messages.insert(message('m0', '+15550000002', at(0)));
      await first!.db.execute("UPDATE messages SET conversation_id = NULL WHERE id = 'm0'");
      assert.equal(await second!.conversations.backfill(10), 1);
      assert.equal(await first!.conversations.backfill(10), 0, 'nothing left to name');
      const number = conversationIdOf('conv-1', '+15550000002');
      const email = conversationIdOf('conv-1', 'Ada@Example.com');
      assert.deepEqual((await second!.conversations.timeline('conv-1', [number], 10)).map((r) => r.id), ['m1', 'm0']);
      assert.equal(await first!.conversations.link('conv-1', '+15550000002', ['Ada@Example.com'], at(3)), number);
      assert.equal(await second!.conversations.resolve('conv-1', email), number);
      assert.deepEqual(new Set(await second!.conversations.members('conv-1', number)), new Set([number, email]));
      const all = await second!.conversations.timeline('conv-1', [number, email], 10);
      assert.deepEqual(all.map((r) => r.id), ['m2', 'm1', 'm0']);
      assert.deepEqual((await second!.conversations.timeline('conv-1', [number, email], 10, { createdAt: at(2), id: 'm2' })).map((r) => r.id), ['m1', 'm0']);
      assert.deepEqual(await second!.conversations.timeline('conv-2', [number, email], 10), [], "another agent's rows are not in it");
      await first!.db.transaction((tx) => first!.conversations.deleteAgent(tx, 'conv-1'));
      assert.equal(await second!.conversations.resolve('conv-1', email), email);
    });
  });

  it('conversation summaries: kept by the rows of both tables, merged by links, paged by keyset, rebuilt the same from the rows', async () => {
    await withNodes(2, async ([first, second]) => {
      const at = (s: number) => new Date(Date.parse('2026-06-01T00:00:00Z') + s * 1000).toISOString();
      const message = (id: string, agentId: string, from: string, createdAt: string): MessageRecord => ({
        id, agentId, channel: 'sms', direction: 'inbound', from, to: '+15550000001', subject: null, body: id, html: null,
        mediaUrls: [], externalId: id, status: 'received', segments: 1, cost: null, error: null, delivery: 'done', createdAt, updatedAt: createdAt,
      });
      const number = (n: number) => `+1555010${String(n).padStart(4, '0')}`;
      // 30 conversations, two rows each; four share one time, so the id breaks the tie.
      for (let n = 0; n < 30; n++) {
        const time = n < 4 ? 100 : n;
        await (n % 2 ? first : second)!.messages.insert(message(`sm-${n}-a`, 'sum-1', number(n), at(time - 1)));
        await (n % 2 ? second : first)!.messages.insert(message(`sm-${n}-b`, 'sum-1', number(n), at(time)));
      }
      await first!.messages.insert(message('sm-other', 'sum-2', number(0), at(500)));
      // A call is activity too: conversation 5 becomes the latest.
      await first!.calls.insert({
        callSid: 'CA-sum', sessionId: 'ses-sum', agentId: 'sum-1', direction: 'inbound', mode: 'relay', from: number(5), to: '+15550000001',
        status: 'ringing', durationSeconds: 0, cost: null, createdAt: at(200), updatedAt: at(200),
      });
      // A row named by the backfill counts when it is named.
      await first!.messages.insert(message('sm-late', 'sum-1', number(40), at(300)));
      await first!.db.execute("UPDATE messages SET conversation_id = NULL WHERE id = 'sm-late'");
      await first!.db.execute("DELETE FROM conversation_summaries WHERE conversation_id = ?", [conversationIdOf('sum-1', number(40))]);
      assert.equal(await second!.conversations.backfill(10), 1);

      const pageAll = async (store: Store, limit: number) => {
        const all: { conversationId: string; lastAt: string }[] = [];
        for (let after: { createdAt: string; id: string } | undefined; ; ) {
          const page = await store.conversations.recent('sum-1', limit, after);
          all.push(...page);
          if (page.length < limit) return all;
          after = { createdAt: page.at(-1)!.lastAt, id: page.at(-1)!.conversationId };
        }
      };
      const expected = [
        [conversationIdOf('sum-1', number(40)), at(300)],
        [conversationIdOf('sum-1', number(5)), at(200)],
        ...[0, 1, 2, 3].map((n) => [conversationIdOf('sum-1', number(n)), at(100)]).sort((a, b) => (a[0]! < b[0]! ? 1 : -1)),
        ...Array.from({ length: 26 }, (_, i) => 29 - i).filter((n) => n !== 5).map((n) => [conversationIdOf('sum-1', number(n)), at(n)]),
      ];
      const listed = await pageAll(second!, 4);
      assert.deepEqual(listed.map((c) => [c.conversationId, c.lastAt]), expected, 'each once, latest first, ties by id descending');
      assert.deepEqual(await pageAll(first!, 100), listed, 'the same in one page');

      // Linking 29 into 10: one conversation with the later activity; what was linked away is not listed.
      const [ten, twentyNine] = [conversationIdOf('sum-1', number(10)), conversationIdOf('sum-1', number(29))];
      assert.equal(await first!.conversations.link('sum-1', number(10), [number(29)], at(400)), ten);
      const afterLink = await pageAll(second!, 7);
      assert.equal(afterLink.length, 30);
      assert.equal(afterLink.find((c) => c.conversationId === twentyNine), undefined);
      assert.equal(afterLink.find((c) => c.conversationId === ten)?.lastAt, at(29));
      // A new row of the linked address moves the conversation it joined.
      await second!.messages.insert(message('sm-29-c', 'sum-1', number(29), at(250)));
      assert.deepEqual((await first!.conversations.recent('sum-1', 2)).map((c) => c.conversationId), [conversationIdOf('sum-1', number(40)), ten]);
      // Deleting a conversation's latest row takes its activity back; deleting its only rows, the conversation.
      await first!.messages.delete('sm-29-c');
      assert.deepEqual((await first!.conversations.recent('sum-1', 2)).map((c) => [c.conversationId, c.lastAt]), [[conversationIdOf('sum-1', number(40)), at(300)], [conversationIdOf('sum-1', number(5)), at(200)]]);
      assert.equal((await pageAll(second!, 50)).find((c) => c.conversationId === ten)?.lastAt, at(29));
      await first!.messages.delete('sm-late');
      assert.equal((await pageAll(second!, 50)).find((c) => c.conversationId === conversationIdOf('sum-1', number(40))), undefined);

      // What the triggers and links kept is what the migration computes from the rows.
      const kept = await first!.db.query('SELECT agent_id, conversation_id, last_at FROM conversation_summaries ORDER BY agent_id, conversation_id');
      await first!.db.execute('DELETE FROM conversation_summaries');
      await first!.db.execute(SUMMARIES_FROM_ROWS);
      assert.deepEqual(await second!.db.query('SELECT agent_id, conversation_id, last_at FROM conversation_summaries ORDER BY agent_id, conversation_id'), kept);

      // Deprovisioning forgets the links: the linked address is its own conversation again.
      await first!.db.transaction((tx) => first!.conversations.deleteAgent(tx, 'sum-1'));
      const unlinked = await pageAll(second!, 50);
      assert.deepEqual([unlinked.length, unlinked.find((c) => c.conversationId === twentyNine)?.lastAt, unlinked.find((c) => c.conversationId === ten)?.lastAt], [30, at(29), at(10)]);
      assert.deepEqual((await second!.conversations.recent('sum-2', 10)).map((c) => c.lastAt), [at(500)], "another agent's is its own");
    });
  });

  it('replies: the first reply of a conversation after a cursor, the latest send, and a reply task read back', async () => {
    await withNodes(2, async ([first, second]) => {
      const now = new Date().toISOString();
      const customer = { ...inbound('reply-1', 'SMR1', now), from: '+14155550111' };
      const other = { ...inbound('reply-1', 'SMR2', now), from: '+14155550122' };
      const outbound: MessageRecord = { ...customer, id: 'msg-out', direction: 'outbound', from: customer.to, to: customer.from, externalId: null, status: 'queued' };
      await first!.db.executeAll([first!.messages.insertInboundStatement(other), first!.inbox.appendStatement(receivedEntry(other))]);
      await first!.db.executeAll([first!.messages.insertInboundStatement(outbound), first!.inbox.appendStatement(statusEntry(outbound, { status: 'queued' }))]);
      const conversationId = conversationIdOf('reply-1', customer.from);
      assert.deepEqual(await second!.inbox.conversationMarks('reply-1', conversationId), { lastCursor: 2, lastSendCursor: 2 });
      assert.equal(await second!.inbox.firstOf('reply-1', conversationId, 0, ['message.received', 'voicemail']), undefined, "the other number's message is another conversation");
      await first!.db.executeAll([first!.messages.insertInboundStatement(customer), first!.inbox.appendStatement(receivedEntry(customer))]);
      const reply = await second!.inbox.firstOf('reply-1', conversationId, 2, ['message.received', 'voicemail']);
      assert.deepEqual([reply?.cursor, reply?.messageId], [3, customer.id]);
      assert.equal(await second!.inbox.firstOf('reply-1', conversationId, 3, ['message.received']), undefined);
      assert.deepEqual(await second!.inbox.conversationMarks('reply-1', 'cnv_nothing'), { lastCursor: 0, lastSendCursor: 0 });

      const task = { taskId: 'task-r', owner: 'team', agentId: 'reply-1', kind: 'reply' as const, conversationId, afterCursor: 2, deadlineAt: now, createdAt: now, ttlMs: 90_000_000_000 };
      await first!.tasks.create(task);
      assert.deepEqual(await second!.tasks.find('task-r', 'team'), { ...task, cancelledAt: null });
    });
  });

  it('tasks: found only by their owner on any node, a long TTL read back as a number, cancelled once', async () => {
    await withNodes(2, async ([first, second]) => {
      const now = new Date().toISOString();
      const task = { taskId: 'task-1', owner: 'client:task-agent', agentId: 'task-agent', kind: 'call' as const, callId: 'CA-task', createdAt: now, ttlMs: 30 * 86_400_000 };
      await first!.tasks.create(task);
      assert.deepEqual(await second!.tasks.find('task-1', 'client:task-agent'), { ...task, cancelledAt: null });
      assert.equal(await second!.tasks.find('task-1', 'client:other-agent'), undefined, "another owner's task is not found");
      assert.equal(await second!.tasks.find('task-nobody', 'client:task-agent'), undefined);
      assert.equal(await first!.tasks.cancel('task-1', now), true);
      assert.equal(await second!.tasks.cancel('task-1', new Date().toISOString()), false, 'cancelled once');
      assert.equal((await first!.tasks.find('task-1', 'client:task-agent'))!.cancelledAt, now);
    });
  });

  it('tasks: those whose time to live ended before the sweep are deleted, to the millisecond; live ones kept', async () => {
    await withNodes(2, async ([first, second]) => {
      const t0 = Date.parse('2026-04-01T00:00:00.000Z');
      const sweepAt = t0 + 7_200_000;
      const task = (taskId: string, createdMs: number, ttlMs: number) =>
        ({ taskId, owner: 'team', agentId: 'sweep-agent', kind: 'call' as const, callId: `CA-${taskId}`, createdAt: new Date(createdMs).toISOString(), ttlMs });
      const tasks = [
        task('ended', t0, 3_600_000),
        task('ended-just-before', t0 + 1, 7_200_000 - 2),
        task('ends-just-after', t0 + 1, 7_200_000),
        task('long-lived', t0 - 86_400_000, 30 * 86_400_000),
        task('made-after', sweepAt + 1000, 0),
      ];
      for (const t of tasks) await first!.tasks.create(t);
      assert.equal(await second!.tasks.sweepExpired(new Date(t0)), 0, 'none had ended by t0');
      assert.equal(await second!.tasks.sweepExpired(new Date(sweepAt)), 2);
      const left = await Promise.all(tasks.map(async (t) => [t.taskId, (await first!.tasks.find(t.taskId, 'team')) !== undefined]));
      assert.deepEqual(Object.fromEntries(left), { ended: false, 'ended-just-before': false, 'ends-just-after': true, 'long-lived': true, 'made-after': true });
      assert.equal(await first!.tasks.sweepExpired(new Date(sweepAt)), 0, 'a second sweep finds nothing');
    });
  });

  it('agent content: erased in one transaction (messages, calls, dead letters, links, summaries, tasks, idempotent answers), recordings named; usage and other agents kept', async () => {
    await withNodes(2, async ([first, second]) => {
      const now = new Date().toISOString();
      for (const agentId of ['erase-1', 'erase-2']) {
        const message = { ...inbound(agentId, `SME-${agentId}`, now), from: '+14155550111' };
        await first!.messages.insert(message);
        await first!.db.executeAll([first!.idempotency.claimStatement({ scope: 'team::POST /api/v1/send-message', key: `k-${agentId}`, requestHash: 'h' }, message.id)]);
        await first!.idempotency.record(`client:${agentId}:GET /api/v1/calls`, 'k', { requestHash: 'h', status: 200, body: {} });
        await first!.calls.insert({ callSid: `CA-${agentId}`, sessionId: `ses_${agentId}`, agentId, direction: 'inbound', mode: 'relay', from: '+14155550111', to: '+12025550101', status: 'completed', durationSeconds: 3, cost: null, createdAt: now, updatedAt: now });
        await first!.calls.saveRecording(`ses_${agentId}`, { file: `ses_${agentId}.wav`, seconds: 3, recordedAt: now });
        await first!.deadLetters.insert({ id: `dl-${agentId}`, agentId, channel: 'sms', direction: 'inbound', reason: 'agent_offline', from: '+14155550111', to: '+12025550101', body: 'secret', mediaUrls: [], externalId: null, attempts: 0, createdAt: now });
        await first!.conversations.link(agentId, '+14155550111', ['ada@example.com'], now);
        await first!.tasks.create({ taskId: `task-${agentId}`, owner: `client:${agentId}`, agentId, kind: 'call', callId: `CA-${agentId}`, createdAt: now, ttlMs: 60_000 });
        await first!.usage.insert({ id: `use-${agentId}`, agentId, channel: 'sms', action: 'message', quantity: 1, providerCost: null, tariffCost: 0.01, externalId: null, createdAt: now });
      }
      const counts = async (agentId: string) => {
        const out: Record<string, number> = {};
        for (const table of ['messages', 'calls', 'dead_letters', 'contact_links', 'conversation_summaries', 'tasks', 'usage_records']) {
          out[table] = Number((await second!.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE agent_id = ?`, [agentId]))!.n);
        }
        out.idempotency_keys = Number((await second!.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM idempotency_keys WHERE scope LIKE ? OR idempotency_key = ?", [`client:${agentId}:%`, `k-${agentId}`]))!.n);
        return out;
      };
      const full = { messages: 1, calls: 1, dead_letters: 1, contact_links: 1, conversation_summaries: 1, tasks: 1, usage_records: 1, idempotency_keys: 2 };
      assert.deepEqual(await counts('erase-1'), full);
      const recordings = await second!.db.transaction((tx) => second!.agentContent.erase(tx, 'erase-1'));
      assert.deepEqual(recordings, ['ses_erase-1.wav'], 'the recording files to remove once committed');
      assert.deepEqual(await counts('erase-1'), { ...full, messages: 0, calls: 0, dead_letters: 0, contact_links: 0, conversation_summaries: 0, tasks: 0, idempotency_keys: 0 }, 'usage records stay for billing');
      assert.deepEqual(await counts('erase-2'), full, "another agent's content is untouched");
    });
  });

  it('callback log: attempts from two nodes, the endpoint disabled once, replay, paging, parking, retention and deprovisioning', async () => {
    await withNodes(2, async (stores) => {
      const [first, second] = stores as [Store, Store];
      const t0 = Date.parse('2026-04-01T00:00:00Z');
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const event = (id: string) => ({ id, type: 'message.status' as const, agentId: 'cb-1', createdAt: at(0), data: { n: id } });
      for (const id of ['evt_a', 'evt_b']) await first.callbacks.keep(event(id), null, new Date(t0));
      const again = await second.callbacks.keep({ ...event('evt_a'), data: { n: 'other' } }, null, new Date(t0 + 5));
      assert.deepEqual([again.event.data, again.createdAt], [{ n: 'evt_a' }, at(0)], 'a kept event is kept once');
      const attempt = (n: number, eventId: string, ms: number, outcome: 'retrying' | 'delivered') => ({
        id: `cba_${String(n).padStart(26, '0')}`, eventId, agentId: 'cb-1', url: 'https://agent.example/hook', attempt: 1, statusCode: outcome === 'delivered' ? 200 : 500,
        error: null, latencyMs: 12, responseExcerpt: 'x', outcome, createdAt: at(ms),
      });
      const disableBefore = new Date(t0 + 50);
      const endpoints = await Promise.all([
        first.callbacks.recordAttempt(attempt(1, 'evt_a', 100, 'retrying'), 'pending', disableBefore),
        second.callbacks.recordAttempt(attempt(2, 'evt_b', 100, 'retrying'), 'pending', disableBefore),
      ]);
      assert.deepEqual(endpoints.map((e) => e.disabledAt), [null, null], 'a run of failures that starts now is not old enough');
      const later = await second.callbacks.recordAttempt(attempt(3, 'evt_a', 200, 'retrying'), 'pending', new Date(t0 + 150));
      assert.deepEqual([later.failingSince, later.disabledAt], [at(100), at(200)], 'the run started by the first failure disables it');
      assert.deepEqual((await first.callbacks.log('cb-1', 2)).map((a) => [a.id, a.eventType]), [[attempt(3, '', 0, 'retrying').id, 'message.status'], [attempt(2, '', 0, 'retrying').id, 'message.status']]);
      assert.deepEqual((await first.callbacks.log('cb-1', 5, attempt(2, '', 0, 'retrying').id)).map((a) => a.attempt), [1]);
      const replayed = await first.callbacks.replay('cb-1', { eventId: 'evt_a' });
      assert.deepEqual(replayed.map((e) => [e.eventId, e.state, e.attempts, e.replays]), [['evt_a', 'pending', 0, 1]]);
      assert.deepEqual(await second.callbacks.endpoint('cb-1'), { agentId: 'cb-1', url: 'https://agent.example/hook', failingSince: null, disabledAt: null });
      await first.callbacks.recordAttempt(attempt(4, 'evt_b', 300, 'delivered'), 'delivered', new Date(t0));
      assert.equal(await first.callbacks.sweep(new Date(t0 + 250)), 4, 'three old attempts and the delivered event; the pending event stays');
      assert.deepEqual((await first.callbacks.pendingNotifications()).map((e) => e.eventId), ['evt_a']);
      await first.callbacks.park('evt_a', new Date(t0 + 10_000));
      assert.deepEqual(await second.callbacks.pendingNotifications(), [], 'a parked event is the parking sweep\'s');
      assert.deepEqual(await second.callbacks.parkedBefore(new Date(t0 + 9_999)), []);
      const [parked] = await second.callbacks.parkedBefore(new Date(t0 + 10_000));
      assert.equal(parked?.parkedUntil, at(10_000));
      await second.callbacks.unpark('evt_a', at(9_000));
      assert.equal((await first.callbacks.event('evt_a'))?.parkedUntil, at(10_000), 'parked again meanwhile: left parked');
      await second.callbacks.unpark('evt_a', at(10_000));
      assert.equal((await first.callbacks.event('evt_a'))?.parkedUntil, null);
      await first.db.transaction((tx) => first.callbacks.deleteAgent(tx, 'cb-1'));
      assert.deepEqual([await first.callbacks.log('cb-1', 5), await first.callbacks.endpoint('cb-1'), await first.callbacks.event('evt_a')], [[], undefined, undefined]);
    });
  });
}
