import type { ReplyCheck } from '../inbox/replies.js';
import type { InboxEntry } from '../store/repositories/inbox.js';
import type { ReplyTaskRecord } from '../store/repositories/tasks.js';

/** What a wait for a reply came to: the reply, or none by the deadline and the cursor to wait after next. */
export interface ReplyOutcome {
  readonly conversationId: string;
  readonly reply: InboxEntry | null;
  /** The reply's cursor, or (timed out) the cursor to pass as `after` to wait again. */
  readonly cursor: number;
  readonly timedOut: boolean;
}

/** A reply task's state at one moment, derived from the agent's inbox, so nothing writes the task when the reply comes. */
export type ReplyTaskState =
  | { readonly status: 'working'; readonly statusMessage: string; readonly lastUpdatedAt: string }
  | { readonly status: 'completed'; readonly statusMessage: string; readonly lastUpdatedAt: string; readonly outcome: ReplyOutcome }
  | { readonly status: 'cancelled'; readonly statusMessage: string; readonly lastUpdatedAt: string };

/**
 * The state of a reply task from its row and a look for a reply after its cursor. A reply written
 * after the deadline does not turn a timed-out task into a completed one (a task's outcome never
 * changes once read): it times out with a cursor just before that reply, so waiting again finds it.
 */
export function replyTaskState(task: ReplyTaskRecord, found: ReplyCheck, now = Date.now()): ReplyTaskState {
  if (task.cancelledAt !== null) return { status: 'cancelled', statusMessage: 'Cancelled: the wait for a reply was ended.', lastUpdatedAt: task.cancelledAt };
  const deadline = Date.parse(task.deadlineAt);
  const { reply } = found;
  if (reply && Date.parse(reply.createdAt) <= deadline) {
    const outcome: ReplyOutcome = { conversationId: task.conversationId, reply, cursor: reply.cursor, timedOut: false };
    return { status: 'completed', statusMessage: `A reply came on ${reply.channel}.`, lastUpdatedAt: reply.createdAt, outcome };
  }
  if (now < deadline && !reply) return { status: 'working', statusMessage: 'Waiting for a reply.', lastUpdatedAt: task.createdAt };
  const cursor = reply ? reply.cursor - 1 : found.cursor;
  const outcome: ReplyOutcome = { conversationId: task.conversationId, reply: null, cursor, timedOut: true };
  return { status: 'completed', statusMessage: 'No reply came before the deadline.', lastUpdatedAt: task.deadlineAt, outcome };
}
