import type { Migration } from '../migrate.js';

/** The conversation a row's own (address-derived) id belongs to now: the one it was linked into, else itself. */
const resolved = (row: 'NEW' | 'OLD') =>
  `COALESCE((SELECT l.conversation_id FROM contact_links l WHERE l.agent_id = ${row}.agent_id AND l.address_conversation_id = ${row}.conversation_id), ${row}.conversation_id)`;

/** A message or call stored (or named by the backfill): its conversation's last activity moves up to it. */
const TOUCH = `INSERT INTO conversation_summaries (agent_id, conversation_id, last_at) VALUES (NEW.agent_id, ${resolved('NEW')}, NEW.created_at)
  ON CONFLICT (agent_id, conversation_id) DO UPDATE SET last_at = excluded.last_at WHERE excluded.last_at > conversation_summaries.last_at`;

/**
 * A message deleted (a send given up in the same moment it was stored): when it was its conversation's
 * latest, the last activity is read again from the conversation's rows, and the summary goes with the last row.
 */
const UNTOUCH = [
  `UPDATE conversation_summaries SET last_at = COALESCE((SELECT MAX(x.created_at) FROM (
      SELECT created_at FROM messages m WHERE m.agent_id = OLD.agent_id AND m.conversation_id IN (SELECT ${resolved('OLD')} UNION SELECT address_conversation_id FROM contact_links WHERE agent_id = OLD.agent_id AND conversation_id = ${resolved('OLD')})
      UNION ALL
      SELECT created_at FROM calls c WHERE c.agent_id = OLD.agent_id AND c.conversation_id IN (SELECT ${resolved('OLD')} UNION SELECT address_conversation_id FROM contact_links WHERE agent_id = OLD.agent_id AND conversation_id = ${resolved('OLD')})
    ) x), '')
    WHERE agent_id = OLD.agent_id AND conversation_id = ${resolved('OLD')} AND last_at = OLD.created_at`,
  `DELETE FROM conversation_summaries WHERE agent_id = OLD.agent_id AND conversation_id = ${resolved('OLD')} AND last_at = ''`,
];

/** Every agent's summaries from its rows and links (what the migration starts from). */
export const SUMMARIES_FROM_ROWS = `INSERT INTO conversation_summaries (agent_id, conversation_id, last_at)
  SELECT a.agent_id, COALESCE(l.conversation_id, a.conversation_id), MAX(a.created_at)
  FROM (SELECT agent_id, conversation_id, created_at FROM messages WHERE conversation_id IS NOT NULL
        UNION ALL SELECT agent_id, conversation_id, created_at FROM calls WHERE conversation_id IS NOT NULL) a
  LEFT JOIN contact_links l ON l.agent_id = a.agent_id AND l.address_conversation_id = a.conversation_id
  GROUP BY a.agent_id, COALESCE(l.conversation_id, a.conversation_id)`;

/** The table (SQLite: clustered on its key, one b-tree fewer for each row's write) and its start. */
const table = (clustered: string) => [
  `CREATE TABLE conversation_summaries (
    agent_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    last_at TEXT NOT NULL,
    PRIMARY KEY (agent_id, conversation_id)
  )${clustered}`,
  // The list's order and keyset: one index range per page.
  'CREATE INDEX conversation_summaries_recent ON conversation_summaries (agent_id, last_at, conversation_id)',
  // Where an address-derived id was linked: the triggers', `resolve`'s and the list's look.
  'CREATE INDEX contact_links_address_conversation ON contact_links (agent_id, address_conversation_id)',
  SUMMARIES_FROM_ROWS,
];

/**
 * Conversation summaries: each conversation of an agent (after links) with its last activity, kept by
 * triggers on messages and calls, so the conversation list pages with a keyset over an index instead
 * of grouping all of an agent's rows. Linking merges summaries (`ConversationRepository.link`).
 */
export const conversationSummaries: Migration = {
  version: 19,
  name: 'conversation-summaries',
  statements: [
    ...table(' WITHOUT ROWID'),
    ...(['messages', 'calls'] as const).flatMap((table) => [
      `CREATE TRIGGER ${table}_conversation_touch AFTER INSERT ON ${table} FOR EACH ROW WHEN NEW.conversation_id IS NOT NULL BEGIN ${TOUCH}; END`,
      `CREATE TRIGGER ${table}_conversation_named AFTER UPDATE OF conversation_id ON ${table} FOR EACH ROW
       WHEN OLD.conversation_id IS NULL AND NEW.conversation_id IS NOT NULL BEGIN ${TOUCH}; END`,
    ]),
    `CREATE TRIGGER messages_conversation_untouch AFTER DELETE ON messages FOR EACH ROW WHEN OLD.conversation_id IS NOT NULL BEGIN ${UNTOUCH.join('; ')}; END`,
  ],
  postgres: [
    ...table(''),
    `CREATE FUNCTION conversation_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${TOUCH}; RETURN NULL; END $$`,
    `CREATE FUNCTION conversation_untouch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${UNTOUCH.join('; ')}; RETURN NULL; END $$`,
    ...(['messages', 'calls'] as const).flatMap((table) => [
      `CREATE TRIGGER ${table}_conversation_touch AFTER INSERT ON ${table} FOR EACH ROW WHEN (NEW.conversation_id IS NOT NULL) EXECUTE FUNCTION conversation_touch()`,
      `CREATE TRIGGER ${table}_conversation_named AFTER UPDATE OF conversation_id ON ${table} FOR EACH ROW
       WHEN (OLD.conversation_id IS NULL AND NEW.conversation_id IS NOT NULL) EXECUTE FUNCTION conversation_touch()`,
    ]),
    'CREATE TRIGGER messages_conversation_untouch AFTER DELETE ON messages FOR EACH ROW WHEN (OLD.conversation_id IS NOT NULL) EXECUTE FUNCTION conversation_untouch()',
  ],
};
