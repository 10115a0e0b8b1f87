import type { CallTaskRecord, StoredTask } from '../store/repositories/tasks.js';
import { ENDED_STATUSES, LEDGER_WAIT_MS, type CallDetail } from '../voice/call-reads.js';
import type { CallSummary } from '../voice/call-ledger.js';

/** What a call placed as a task came to: whether it was answered, its timing, cost, summary and transcript. */
export interface CallOutcome {
  readonly callId: string;
  /** The callee picked up (the provider's `completed`); busy, no-answer, failed and canceled calls were not. */
  readonly answered: boolean;
  readonly status: string;
  readonly from: string;
  readonly to: string;
  readonly connectedAt: string | null;
  readonly endedAt: string | null;
  readonly durationSeconds: number;
  readonly cost: number | null;
  readonly summary: CallSummary | null;
  readonly transcript: readonly { readonly role: string; readonly text: string }[];
}

/**
 * A call task's state at one moment, derived from the call's log row, so nothing writes the task
 * when the call ends. `failed` is kept for a protocol-level fault (the call's row is gone); a call
 * that was not answered is a `completed` task whose outcome says so.
 */
export type CallTaskState =
  | { readonly status: 'working'; readonly statusMessage: string; readonly lastUpdatedAt: string }
  | { readonly status: 'completed'; readonly statusMessage: string; readonly lastUpdatedAt: string; readonly outcome: CallOutcome }
  | { readonly status: 'cancelled'; readonly statusMessage: string; readonly lastUpdatedAt: string }
  | { readonly status: 'failed'; readonly statusMessage: string; readonly lastUpdatedAt: string };

/**
 * How long an expired task's row is kept: a client polling within a day of the expiry is told "Task has
 * expired" (the row says so), after that "Task not found"; both are -32602. The retention sweep deletes it then.
 */
export const EXPIRED_TASK_KEPT_MS = 86_400_000;

/** True once the task's time to live has passed: it is no longer answered for. */
export function taskExpired(task: StoredTask, now = Date.now()): boolean {
  return Date.parse(task.createdAt) + task.ttlMs <= now;
}

/** The state of a call task, from its stored row and its call's (undefined when the call is not on record). */
export function callTaskState(task: CallTaskRecord, call: CallDetail | undefined, now = Date.now()): CallTaskState {
  if (task.cancelledAt !== null) return { status: 'cancelled', statusMessage: 'Cancelled: the call was hung up.', lastUpdatedAt: task.cancelledAt };
  if (!call) return { status: 'failed', statusMessage: `Call ${task.callId} is no longer on record.`, lastUpdatedAt: task.createdAt };
  const lastUpdatedAt = call.endedAt ?? call.connectedAt ?? task.createdAt;
  if (!ENDED_STATUSES.includes(call.status)) return { status: 'working', statusMessage: `The call is ${call.status}.`, lastUpdatedAt };
  // A connected call's ledger and transcript are written by its media connection, which may close just after
  // the provider reports the end; waited for until a little past the call's own length.
  if (call.connectedAt !== null && call.ledger === null && now < Date.parse(call.connectedAt) + call.durationSeconds * 1000 + LEDGER_WAIT_MS * 3) {
    return { status: 'working', statusMessage: 'The call has ended; its transcript is being saved.', lastUpdatedAt };
  }
  const answered = call.status === 'completed';
  const outcome: CallOutcome = {
    callId: call.callId,
    answered,
    status: call.status,
    from: call.from,
    to: call.to,
    connectedAt: call.connectedAt,
    endedAt: call.endedAt,
    durationSeconds: call.durationSeconds,
    cost: call.cost,
    summary: call.summary,
    transcript: call.transcript.map(({ role, text }) => ({ role, text })),
  };
  const statusMessage = answered ? `The call was answered and lasted ${call.durationSeconds} s.` : `The call was not answered (${call.status}).`;
  return { status: 'completed', statusMessage, lastUpdatedAt, outcome };
}
