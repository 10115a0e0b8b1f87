import type { Migration } from '../migrate.js';

/** The reason an older send ends `unknown`. */
const BEFORE = 'sent before Switchboard asked providers for final statuses';

/**
 * The reconciler: when an outbound message or a call without a final status is next to be asked about
 * at its provider (`next_ask_at`, null before the first ask, which is due a fixed time after the row's
 * creation), and partial indexes of the unsettled rows by when they are due, so a sweep reads only what
 * is due (a row leaves them with its final status). What was unsettled before this migration ends `unknown`
 * here, quietly (no inbox entry, no callback): asking providers about a whole history at the first
 * start would post a flood of `unknown` callbacks about old sends. A receipt that comes later applies.
 */
export const reconcile: Migration = {
  version: 17,
  name: 'reconcile',
  statements: [
    'ALTER TABLE messages ADD COLUMN next_ask_at TEXT',
    `CREATE INDEX messages_unasked ON messages (created_at)
      WHERE next_ask_at IS NULL AND direction = 'outbound' AND external_id IS NOT NULL AND status IN ('queued', 'accepted', 'sending', 'sent')`,
    `CREATE INDEX messages_asked ON messages (next_ask_at)
      WHERE next_ask_at IS NOT NULL AND direction = 'outbound' AND external_id IS NOT NULL AND status IN ('queued', 'accepted', 'sending', 'sent')`,
    `UPDATE messages SET status = 'unknown', error = COALESCE(error, '${BEFORE}')
      WHERE direction = 'outbound' AND external_id IS NOT NULL AND status IN ('queued', 'accepted', 'sending', 'sent')`,
    'ALTER TABLE calls ADD COLUMN next_ask_at TEXT',
    `UPDATE calls SET status = 'unknown' WHERE status NOT IN ('completed', 'busy', 'no-answer', 'failed', 'canceled')`,
    `CREATE INDEX calls_unasked ON calls (created_at) WHERE next_ask_at IS NULL AND status NOT IN ('completed', 'busy', 'no-answer', 'failed', 'canceled', 'unknown')`,
    `CREATE INDEX calls_asked ON calls (next_ask_at) WHERE next_ask_at IS NOT NULL AND status NOT IN ('completed', 'busy', 'no-answer', 'failed', 'canceled', 'unknown')`,
  ],
};
