import type { Migration } from '../migrate.js';

/**
 * The agent's inbox: one entry per event an agent should know about (an inbound message, a status
 * change of an outbound one), in the commit that stores the event. `inbox_state` holds each agent's
 * last allocated cursor and its acknowledged cursor: bumping its row in the event's commit gives
 * cursors that increase strictly per agent and commit in order (PostgreSQL's row lock serialises two
 * commits of one agent; SQLite has one writer).
 */
export const inbox: Migration = {
  version: 8,
  name: 'inbox',
  statements: [
    `CREATE TABLE inbox_state (
      agent_id TEXT PRIMARY KEY,
      last_seq BIGINT NOT NULL,
      acked_seq BIGINT NOT NULL DEFAULT 0
    )`,
    `CREATE TABLE inbox_entries (
      agent_id TEXT NOT NULL,
      seq BIGINT NOT NULL,
      id TEXT NOT NULL,
      type TEXT NOT NULL,
      channel TEXT NOT NULL,
      counterpart TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      message_id TEXT,
      status TEXT,
      payload TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (agent_id, seq)
    )`,
    'CREATE INDEX inbox_entries_conversation ON inbox_entries (agent_id, conversation_id, seq)',
    'CREATE INDEX inbox_entries_message ON inbox_entries (message_id)',
  ],
};
