import type { Migration } from '../migrate.js';

/**
 * Call recordings (issue 27): whether an agent's calls are recorded unless a call says otherwise, and
 * on a call's row the recording's file name (under RECORDINGS_DIR), its length, and when it was stored
 * (what the retention sweep reads). A call without a recording keeps them null.
 */
export const callRecordings: Migration = {
  version: 18,
  name: 'call-recordings',
  statements: [
    'ALTER TABLE agents ADD COLUMN record_calls INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE calls ADD COLUMN recording_file TEXT',
    'ALTER TABLE calls ADD COLUMN recording_seconds REAL',
    'ALTER TABLE calls ADD COLUMN recorded_at TEXT',
    'CREATE INDEX calls_recorded ON calls (recorded_at)',
  ],
  postgres: [
    'ALTER TABLE agents ADD COLUMN record_calls INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE calls ADD COLUMN recording_file TEXT',
    'ALTER TABLE calls ADD COLUMN recording_seconds DOUBLE PRECISION',
    'ALTER TABLE calls ADD COLUMN recorded_at TEXT',
    'CREATE INDEX calls_recorded ON calls (recorded_at)',
  ],
};
