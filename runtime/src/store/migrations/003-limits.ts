import type { Migration } from '../migrate.js';

/** Per-agent limit overrides and markup. */
export const limits: Migration = {
  version: 3,
  name: 'limits',
  statements: statements('REAL'),
  postgres: statements('NUMERIC'),
};

function statements(percent: string): string[] {
  return [
    `CREATE TABLE agent_limits (
      agent_id TEXT PRIMARY KEY,
      overrides TEXT NOT NULL DEFAULT '{}',
      markup_percent ${percent},
      updated_at TEXT NOT NULL
    )`,
    `CREATE INDEX usage_records_time ON usage_records (created_at)`,
  ];
}
