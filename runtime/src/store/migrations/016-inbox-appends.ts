import type { Migration } from '../migrate.js';

/** The entry's columns, as the view takes them (`seq` is the trigger's to give). */
const ENTRY_COLUMNS = 'agent_id, id, type, channel, counterpart, conversation_id, message_id, status, payload, created_at';

/**
 * What an append is conditional on (`EntryCondition` in the inbox repository): its message stored,
 * or its call logged at all, with a status other than the one being written, with the status read
 * before (the reconciler's asks, for calls and messages), or without its conversation yet.
 */
const BRANCHES = [
  `WHEN 'message' THEN EXISTS (SELECT 1 FROM messages WHERE id = NEW.when_key)`,
  `WHEN 'call' THEN EXISTS (SELECT 1 FROM calls WHERE call_sid = NEW.when_key)`,
  `WHEN 'call-status' THEN EXISTS (SELECT 1 FROM calls WHERE call_sid = NEW.when_key AND status <> NEW.when_status)`,
  `WHEN 'call-status-is' THEN EXISTS (SELECT 1 FROM calls WHERE call_sid = NEW.when_key AND status = NEW.when_status)`,
  `WHEN 'message-status-is' THEN EXISTS (SELECT 1 FROM messages WHERE id = NEW.when_key AND status = NEW.when_status)`,
  `WHEN 'call-unlinked' THEN EXISTS (SELECT 1 FROM calls WHERE call_sid = NEW.when_key AND ledger IS NULL)`,
];

/** The condition over the given kinds (a later migration adds kinds to migration 16's). */
const condition = (branches: readonly string[]) => `CASE NEW.when_kind
  ${branches.join('\n  ')}
  ELSE FALSE END`;

/**
 * An inbox entry is one INSERT into the view `inbox_appends`, whose trigger bumps the agent's last
 * cursor and writes the entry at it, when the entry's condition holds. One plain INSERT, where
 * migration 8 needed a bump and an `INSERT … SELECT` from the caller: SQLite's group commit makes
 * many webhooks' entries one multi-row statement (its trigger runs row by row, in order, so cursors
 * still increase strictly per agent), and PostgreSQL's row lock on `inbox_state` still orders two
 * commits of one agent.
 */
/** The view's trigger (SQLite) and its function (PostgreSQL) over the condition's kinds. */
export function inboxAppendTrigger(branches: readonly string[]): { sqlite: string; postgresFunction: string } {
  const CONDITION = condition(branches);
  return {
    sqlite: `CREATE TRIGGER inbox_append INSTEAD OF INSERT ON inbox_appends
     FOR EACH ROW WHEN ${CONDITION}
     BEGIN
       INSERT INTO inbox_state (agent_id, last_seq, acked_seq) VALUES (NEW.agent_id, 1, 0)
         ON CONFLICT (agent_id) DO UPDATE SET last_seq = inbox_state.last_seq + 1;
       INSERT INTO inbox_entries (${ENTRY_COLUMNS}, seq)
         SELECT NEW.agent_id, NEW.id, NEW.type, NEW.channel, NEW.counterpart, NEW.conversation_id, NEW.message_id, NEW.status, NEW.payload, NEW.created_at, s.last_seq
         FROM inbox_state s WHERE s.agent_id = NEW.agent_id;
     END`,
    postgresFunction: `CREATE OR REPLACE FUNCTION inbox_append() RETURNS trigger LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
     DECLARE cursor_given BIGINT;
     BEGIN
       IF NOT (${CONDITION}) THEN RETURN NULL; END IF;
       INSERT INTO inbox_state (agent_id, last_seq, acked_seq) VALUES (NEW.agent_id, 1, 0)
         ON CONFLICT (agent_id) DO UPDATE SET last_seq = inbox_state.last_seq + 1
         RETURNING last_seq INTO cursor_given;
       INSERT INTO inbox_entries (${ENTRY_COLUMNS}, seq)
         VALUES (NEW.agent_id, NEW.id, NEW.type, NEW.channel, NEW.counterpart, NEW.conversation_id, NEW.message_id, NEW.status, NEW.payload, NEW.created_at, cursor_given);
       RETURN NEW;
     END $$`,
  };
}

/** Migration 16's kinds; a later migration's trigger adds to them. */
export const INBOX_APPEND_KINDS: readonly string[] = BRANCHES;

const trigger = inboxAppendTrigger(BRANCHES);

export const inboxAppends: Migration = {
  version: 16,
  name: 'inbox-appends',
  statements: [
    `CREATE VIEW inbox_appends AS SELECT ${ENTRY_COLUMNS},
       NULL AS when_kind, NULL AS when_key, NULL AS when_status FROM inbox_entries WHERE 0`,
    trigger.sqlite,
  ],
  postgres: [
    `CREATE VIEW inbox_appends AS SELECT ${ENTRY_COLUMNS},
       NULL::TEXT AS when_kind, NULL::TEXT AS when_key, NULL::TEXT AS when_status FROM inbox_entries WHERE FALSE`,
    trigger.postgresFunction,
    'CREATE TRIGGER inbox_append INSTEAD OF INSERT ON inbox_appends FOR EACH ROW EXECUTE FUNCTION inbox_append()',
  ],
};
