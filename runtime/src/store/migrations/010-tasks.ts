import type { Migration } from '../migrate.js';

/**
 * Tasks of the MCP Tasks extension (a call placed as a task): who owns the task, which agent and
 * call it follows, when it was made, how long it is kept, and when it was cancelled. Its status is
 * not stored: it is read from the call's own log row, so nothing writes here when the call ends.
 */
export const tasks: Migration = {
  version: 10,
  name: 'tasks',
  statements: [
    `CREATE TABLE tasks (
      task_id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      call_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ttl_ms BIGINT NOT NULL,
      cancelled_at TEXT
    )`,
    'CREATE INDEX tasks_created ON tasks (created_at)',
  ],
};
