import type { Migration } from '../migrate.js';

/**
 * The reconciler: when an outbound message or a call without a final status was last asked about at
 * its provider, and partial indexes of those, so the sweep reads only what is still unsettled (a row
 * leaves its index with its final status).
 */
export const reconcile: Migration = {
  version: 17,
  name: 'reconcile',
  statements: [
    'ALTER TABLE messages ADD COLUMN reconciled_at TEXT',
    `CREATE INDEX messages_unsettled ON messages (created_at)
      WHERE direction = 'outbound' AND external_id IS NOT NULL AND status IN ('queued', 'accepted', 'sending', 'sent')`,
    'ALTER TABLE calls ADD COLUMN reconciled_at TEXT',
    `CREATE INDEX calls_unsettled ON calls (created_at) WHERE status NOT IN ('completed', 'busy', 'no-answer', 'failed', 'canceled', 'unknown')`,
  ],
};
