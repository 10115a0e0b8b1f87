import type { Migration } from '../migrate.js';

/**
 * What a call leaves beside its log row, written by the process that held its media when it ends:
 * when the media connected and the call ended, its per-turn latency ledger and its transcript (JSON).
 * A call that never connected keeps them null.
 */
export const callLedger: Migration = {
  version: 9,
  name: 'call-ledger',
  statements: [
    'ALTER TABLE calls ADD COLUMN connected_at TEXT',
    'ALTER TABLE calls ADD COLUMN ended_at TEXT',
    'ALTER TABLE calls ADD COLUMN ledger TEXT',
    'ALTER TABLE calls ADD COLUMN transcript TEXT',
    'CREATE INDEX calls_created ON calls (created_at)',
  ],
};
