import type { SqlExecutor } from '../database.js';

/**
 * What a task follows: a voice call placed as a task (`comms_make_call`, `comms_call_on_behalf`), or
 * the wait for a reply in a conversation (`comms_wait_for_reply`).
 */
export type TaskKind = 'call' | 'reply';

/** What every stored task has; its status is derived from what it follows (see tasks/). */
interface TaskBase {
  readonly taskId: string;
  /** Who may read and cancel it: the principal that created it (`client:<agentId>:<tokenId>`, `team`, `orchestrator`). */
  readonly owner: string;
  readonly agentId: string;
  readonly createdAt: string;
  readonly ttlMs: number;
  readonly cancelledAt: string | null;
}

/** A call placed as a task. */
export interface CallTaskRecord extends TaskBase {
  readonly kind: 'call';
  readonly callId: string;
}

/** A wait for the first reply in a conversation after an inbox cursor, until a deadline. */
export interface ReplyTaskRecord extends TaskBase {
  readonly kind: 'reply';
  readonly conversationId: string;
  readonly afterCursor: number;
  readonly deadlineAt: string;
}

/** A task as stored. */
export type StoredTask = CallTaskRecord | ReplyTaskRecord;

/** A task before it is stored (never cancelled yet). */
export type NewTask = Omit<CallTaskRecord, 'cancelledAt'> | Omit<ReplyTaskRecord, 'cancelledAt'>;

interface TaskRow {
  task_id: string;
  owner: string;
  agent_id: string;
  kind: TaskKind;
  subject_id: string;
  created_at: string;
  ttl_ms: number | string;
  cancelled_at: string | null;
  after_cursor: number | string | null;
  deadline_at: string | null;
}

/** The tasks of the MCP Tasks extension. */
export class TaskRepository {
  constructor(private readonly db: SqlExecutor) {}

  async create(task: NewTask): Promise<void> {
    const [subject, afterCursor, deadlineAt] = task.kind === 'call' ? [task.callId, null, null] : [task.conversationId, task.afterCursor, task.deadlineAt];
    await this.db.execute('INSERT INTO tasks (task_id, owner, agent_id, kind, subject_id, created_at, ttl_ms, after_cursor, deadline_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      task.taskId,
      task.owner,
      task.agentId,
      task.kind,
      subject,
      task.createdAt,
      task.ttlMs,
      afterCursor,
      deadlineAt,
    ]);
  }

  /** The task when `owner` owns it; another owner's task is not found. */
  async find(taskId: string, owner: string): Promise<StoredTask | undefined> {
    const row = await this.db.get<TaskRow>('SELECT * FROM tasks WHERE task_id = ? AND owner = ?', [taskId, owner]);
    return row && toTask(row);
  }

  /**
   * The reply tasks of `agentId` whose owner matches `ownerPattern` (SQL LIKE) that were not cancelled
   * and whose deadline is after `now`, soonest deadline first, at most `limit`: the waits that may still be on.
   */
  async openReplies(agentId: string, ownerPattern: string, now: Date, limit: number): Promise<ReplyTaskRecord[]> {
    const rows = await this.db.query<TaskRow>(
      "SELECT * FROM tasks WHERE agent_id = ? AND owner LIKE ? AND kind = 'reply' AND cancelled_at IS NULL AND deadline_at > ? ORDER BY deadline_at LIMIT ?",
      [agentId, ownerPattern, now.toISOString(), limit],
    );
    return rows.map(toTask) as ReplyTaskRecord[];
  }

  /** Marks the task cancelled (once); false when it was already. */
  async cancel(taskId: string, at: string): Promise<boolean> {
    const { changes } = await this.db.execute('UPDATE tasks SET cancelled_at = ? WHERE task_id = ? AND cancelled_at IS NULL', [at, taskId]);
    return changes > 0;
  }

  /**
   * Deletes the tasks whose time to live ended before `before`; returns how many. The created-at
   * bound (no task made after `before` can have ended before it) keeps the look on the index.
   */
  async sweepExpired(before: Date): Promise<number> {
    // When a task ends is computed in SQL, which the two dialects spell differently (ISO text to milliseconds).
    const createdMs = this.db.dialect === 'postgres' ? 'extract(epoch FROM created_at::timestamptz) * 1000' : '(julianday(created_at) - 2440587.5) * 86400000.0';
    const { changes } = await this.db.execute(`DELETE FROM tasks WHERE created_at < ? AND ${createdMs} + ttl_ms < ?`, [before.toISOString(), before.getTime()]);
    return changes;
  }
}

function toTask(row: TaskRow): StoredTask {
  const base = { taskId: row.task_id, owner: row.owner, agentId: row.agent_id, createdAt: row.created_at, ttlMs: Number(row.ttl_ms), cancelledAt: row.cancelled_at };
  if (row.kind === 'reply') return { ...base, kind: 'reply', conversationId: row.subject_id, afterCursor: Number(row.after_cursor ?? 0), deadlineAt: row.deadline_at ?? row.created_at };
  return { ...base, kind: 'call', callId: row.subject_id };
}
