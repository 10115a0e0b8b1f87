import type { Migration } from '../migrate.js';

/**
 * The reconciler: when an outbound message without a final status was last asked about at its
 * provider, and a partial index of those messages, so the sweep reads only what is still unsettled
 * (a message leaves it with its final status).
 */
export const reconcile: Migration = {
  version: 17,
  name: 'reconcile',
  statements: [
    'ALTER TABLE messages ADD COLUMN reconciled_at TEXT',
    `CREATE INDEX messages_unsettled ON messages (created_at)
      WHERE direction = 'outbound' AND external_id IS NOT NULL AND status IN ('queued', 'accepted', 'sending', 'sent')`,
  ],
};
