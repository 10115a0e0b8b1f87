import type { Migration } from '../migrate.js';

/**
 * Tasks that wait for a reply (`comms_wait_for_reply`): the column that named a task's call now names
 * what any task follows (a call's sid, or a conversation's id), and a reply task keeps the inbox cursor
 * it waits after and its deadline. Its status is still derived at read time, from the agent's inbox.
 */
export const replyTasks: Migration = {
  version: 12,
  name: 'reply-tasks',
  statements: [
    'ALTER TABLE tasks RENAME COLUMN call_id TO subject_id',
    'ALTER TABLE tasks ADD COLUMN after_cursor BIGINT',
    'ALTER TABLE tasks ADD COLUMN deadline_at TEXT',
  ],
};
