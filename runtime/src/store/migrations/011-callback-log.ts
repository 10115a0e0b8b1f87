import type { Migration } from '../migrate.js';

/**
 * Callbacks at the grade of the best webhook senders: `callback_events` holds each event that went to
 * an agent's callback URL (its payload, for retries after a restart and for replay, and where its
 * retry schedule stands, and until when it is parked: a long wait is not held in the work queue),
 * `callback_attempts` one row per post (the delivery log), and
 * `callback_endpoints` each agent's URL with the start of its current run of failures and when it was
 * disabled. Ids are time-ordered (ULIDs), so the log pages by id.
 */
export const callbackLog: Migration = {
  version: 11,
  name: 'callback-log',
  statements: [
    `CREATE TABLE callback_events (
      event_id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      type TEXT NOT NULL,
      message_id TEXT,
      payload TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      last_attempt_at TEXT,
      replays INTEGER NOT NULL DEFAULT 0,
      parked_until TEXT,
      created_at TEXT NOT NULL
    )`,
    'CREATE INDEX callback_events_agent ON callback_events (agent_id, created_at)',
    'CREATE INDEX callback_events_state ON callback_events (state)',
    'CREATE INDEX callback_events_parked ON callback_events (parked_until)',
    `CREATE TABLE callback_attempts (
      id TEXT PRIMARY KEY,
      event_id TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      url TEXT NOT NULL,
      attempt INTEGER NOT NULL,
      status_code INTEGER,
      error TEXT,
      latency_ms INTEGER NOT NULL,
      response_excerpt TEXT,
      outcome TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
    'CREATE INDEX callback_attempts_agent ON callback_attempts (agent_id, id)',
    'CREATE INDEX callback_attempts_event ON callback_attempts (event_id)',
    'CREATE INDEX callback_attempts_created ON callback_attempts (created_at)',
    `CREATE TABLE callback_endpoints (
      agent_id TEXT PRIMARY KEY,
      url TEXT NOT NULL,
      failing_since TEXT,
      disabled_at TEXT
    )`,
  ],
};
