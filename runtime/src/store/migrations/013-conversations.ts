import type { Migration } from '../migrate.js';

/**
 * Conversations: each message and call names its conversation (the agent with one counterpart
 * address, `conversationIdOf`), so a conversation's timeline is an index range, not a scan; rows from
 * before this migration are filled in by `ConversationBackfill` (the id is a hash the SQL of both
 * dialects cannot compute alike). `contact_links` joins an address's own conversation into another
 * one the agent chose (a customer who texts, then emails).
 */
export const conversations: Migration = {
  version: 13,
  name: 'conversations',
  statements: [
    'ALTER TABLE messages ADD COLUMN conversation_id TEXT',
    'ALTER TABLE calls ADD COLUMN conversation_id TEXT',
    'CREATE INDEX messages_conversation ON messages (agent_id, conversation_id, created_at)',
    'CREATE INDEX calls_conversation ON calls (agent_id, conversation_id, created_at)',
    // What the backfill has left to name (empty once it is done, so its look at start costs nothing).
    'CREATE INDEX messages_unnamed ON messages (id) WHERE conversation_id IS NULL',
    'CREATE INDEX calls_unnamed ON calls (call_sid) WHERE conversation_id IS NULL',
    `CREATE TABLE contact_links (
      agent_id TEXT NOT NULL,
      address TEXT NOT NULL,
      address_conversation_id TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      linked_at TEXT NOT NULL,
      PRIMARY KEY (agent_id, address)
    )`,
    'CREATE INDEX contact_links_conversation ON contact_links (agent_id, conversation_id)',
  ],
};
