import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEntry } from '../src/store/repositories/inbox.js';
import type { ReplyTaskRecord } from '../src/store/repositories/tasks.js';
import { replyTaskState } from '../src/tasks/reply-task.js';

const CREATED = '2026-11-26T10:00:00.000Z';
const DEADLINE = '2026-11-26T10:10:00.000Z';
const task: ReplyTaskRecord = { taskId: 't', owner: 'team', agentId: 'a', kind: 'reply', conversationId: 'cnv_x', afterCursor: 4, deadlineAt: DEADLINE, createdAt: CREATED, ttlMs: 1, cancelledAt: null };
const entry = (cursor: number, createdAt: string): InboxEntry => ({
  cursor, id: `inb${cursor}`, type: 'message.received', agentId: 'a', channel: 'sms', counterpart: '+1', conversationId: 'cnv_x', messageId: 'm', status: 'received', payload: { body: 'hi' }, createdAt,
});
const before = Date.parse(DEADLINE) - 1000;
const afterDeadline = Date.parse(DEADLINE) + 1000;

describe('a reply task derived from the inbox', () => {
  it('works until a reply or the deadline', () => {
    assert.equal(replyTaskState(task, { reply: null, cursor: 9 }, before).status, 'working');
  });

  it('completes with the reply, before or after its deadline is read', () => {
    const reply = entry(7, '2026-11-26T10:05:00.000Z');
    for (const now of [before, afterDeadline]) {
      const state = replyTaskState(task, { reply, cursor: 7 }, now);
      assert.equal(state.status, 'completed');
      assert.deepEqual(state.status === 'completed' && state.outcome, { conversationId: 'cnv_x', reply, cursor: 7, timedOut: false });
    }
  });

  it('times out at the deadline with the cursor to wait after; a reply stored later does not change that, and waiting again finds it', () => {
    const none = replyTaskState(task, { reply: null, cursor: 9 }, afterDeadline);
    assert.deepEqual(none.status === 'completed' && none.outcome, { conversationId: 'cnv_x', reply: null, cursor: 9, timedOut: true });
    const late = replyTaskState(task, { reply: entry(12, '2026-11-26T10:10:00.500Z'), cursor: 12 }, afterDeadline);
    assert.deepEqual(late.status === 'completed' && late.outcome, { conversationId: 'cnv_x', reply: null, cursor: 11, timedOut: true });
  });

  it('stays cancelled whatever comes after', () => {
    const cancelled = { ...task, cancelledAt: CREATED };
    assert.equal(replyTaskState(cancelled, { reply: entry(7, CREATED), cursor: 7 }, before).status, 'cancelled');
  });
});
