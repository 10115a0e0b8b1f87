import type { Migration } from '../migrate.js';

/** The reason an older send ends `unknown`. */
const BEFORE = 'sent before Switchboard asked providers for final statuses';

/**
 * The reconciler: when an outbound message or a call without a final status was last asked about at
 * its provider, and partial indexes of those, so the sweep reads only what is still unsettled (a row
 * leaves its index with its final status). What was unsettled before this migration ends `unknown`
 * here, quietly (no inbox entry, no callback): asking providers about a whole history at the first
 * start would post a flood of `unknown` callbacks about old sends. A receipt that comes later applies.
 */
export const reconcile: Migration = {
  version: 17,
  name: 'reconcile',
  statements: [
    'ALTER TABLE messages ADD COLUMN reconciled_at TEXT',
    `CREATE INDEX messages_unsettled ON messages (created_at)
      WHERE direction = 'outbound' AND external_id IS NOT NULL AND status IN ('queued', 'accepted', 'sending', 'sent')`,
    `UPDATE messages SET status = 'unknown', error = COALESCE(error, '${BEFORE}')
      WHERE direction = 'outbound' AND external_id IS NOT NULL AND status IN ('queued', 'accepted', 'sending', 'sent')`,
    'ALTER TABLE calls ADD COLUMN reconciled_at TEXT',
    `UPDATE calls SET status = 'unknown' WHERE status NOT IN ('completed', 'busy', 'no-answer', 'failed', 'canceled')`,
    `CREATE INDEX calls_unsettled ON calls (created_at) WHERE status NOT IN ('completed', 'busy', 'no-answer', 'failed', 'canceled', 'unknown')`,
  ],
};
