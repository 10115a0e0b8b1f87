import type { SqlExecutor } from '../database.js';

/** What a task follows: a voice call placed as a task (`comms_make_call`, `comms_call_on_behalf`). */
export type TaskKind = 'call';

/** A task as stored; its status is derived from what it follows (see tasks/call-task.ts). */
export interface StoredTask {
  readonly taskId: string;
  /** Who may read and cancel it: the principal that created it (`client:<agentId>`, `team`, `orchestrator`). */
  readonly owner: string;
  readonly agentId: string;
  readonly kind: TaskKind;
  readonly callId: string;
  readonly createdAt: string;
  readonly ttlMs: number;
  readonly cancelledAt: string | null;
}

interface TaskRow {
  task_id: string;
  owner: string;
  agent_id: string;
  kind: TaskKind;
  call_id: string;
  created_at: string;
  ttl_ms: number | string;
  cancelled_at: string | null;
}

/** The tasks of the MCP Tasks extension. */
export class TaskRepository {
  constructor(private readonly db: SqlExecutor) {}

  async create(task: Omit<StoredTask, 'cancelledAt'>): Promise<void> {
    await this.db.execute('INSERT INTO tasks (task_id, owner, agent_id, kind, call_id, created_at, ttl_ms) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      task.taskId,
      task.owner,
      task.agentId,
      task.kind,
      task.callId,
      task.createdAt,
      task.ttlMs,
    ]);
  }

  /** The task when `owner` owns it; another owner's task is not found. */
  async find(taskId: string, owner: string): Promise<StoredTask | undefined> {
    const row = await this.db.get<TaskRow>('SELECT * FROM tasks WHERE task_id = ? AND owner = ?', [taskId, owner]);
    return row && toTask(row);
  }

  /** Marks the task cancelled (once); false when it was already. */
  async cancel(taskId: string, at: string): Promise<boolean> {
    const { changes } = await this.db.execute('UPDATE tasks SET cancelled_at = ? WHERE task_id = ? AND cancelled_at IS NULL', [at, taskId]);
    return changes > 0;
  }
}

function toTask(row: TaskRow): StoredTask {
  return {
    taskId: row.task_id,
    owner: row.owner,
    agentId: row.agent_id,
    kind: row.kind,
    callId: row.call_id,
    createdAt: row.created_at,
    ttlMs: Number(row.ttl_ms),
    cancelledAt: row.cancelled_at,
  };
}
