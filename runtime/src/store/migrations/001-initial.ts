import type { Migration } from '../migrate.js';

/** Column types that differ between backends: money is exact (NUMERIC) in PostgreSQL. */
interface Types {
  readonly money: string;
  readonly real: string;
}

/** Agents, their channels and pools, tokens, messages, dead letters, usage, calls, settings. */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  statements: statements({ money: 'REAL', real: 'REAL' }),
  postgres: statements({ money: 'NUMERIC', real: 'DOUBLE PRECISION' }),
};

function statements(t: Types): string[] {
  return [
    `CREATE TABLE agents (
      agent_id TEXT PRIMARY KEY,
      display_name TEXT NOT NULL,
      status TEXT NOT NULL,
      blocked_channels TEXT NOT NULL DEFAULT '[]',
      callback_url TEXT,
      signing_secret TEXT,
      greeting TEXT,
      system_prompt TEXT,
      voice TEXT,
      language TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    `CREATE TABLE pool_entries (
      pool TEXT NOT NULL,
      address TEXT NOT NULL,
      agent_id TEXT REFERENCES agents(agent_id) ON DELETE SET NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (pool, address)
    )`,
    `CREATE INDEX pool_entries_free ON pool_entries (pool, agent_id)`,
    `CREATE TABLE agent_channels (
      agent_id TEXT NOT NULL REFERENCES agents(agent_id) ON DELETE CASCADE,
      channel TEXT NOT NULL,
      address TEXT NOT NULL,
      pool TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (agent_id, channel)
    )`,
    `CREATE INDEX agent_channels_address ON agent_channels (channel, address)`,
    `CREATE TABLE tokens (
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      agent_id TEXT REFERENCES agents(agent_id) ON DELETE CASCADE,
      token_hash TEXT NOT NULL UNIQUE,
      sealed_token TEXT,
      created_at TEXT NOT NULL
    )`,
    `CREATE TABLE messages (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      channel TEXT NOT NULL,
      direction TEXT NOT NULL,
      from_address TEXT NOT NULL,
      to_address TEXT NOT NULL,
      subject TEXT,
      body TEXT NOT NULL,
      html TEXT,
      media_urls TEXT NOT NULL DEFAULT '[]',
      external_id TEXT,
      status TEXT NOT NULL,
      segments INTEGER NOT NULL DEFAULT 1,
      cost ${t.money},
      error TEXT,
      delivery TEXT NOT NULL DEFAULT 'done',
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    `CREATE UNIQUE INDEX messages_external ON messages (agent_id, channel, direction, external_id)`,
    `CREATE INDEX messages_external_id ON messages (external_id)`,
    `CREATE INDEX messages_delivery ON messages (delivery, agent_id)`,
    `CREATE TABLE dead_letters (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      channel TEXT NOT NULL,
      direction TEXT NOT NULL,
      reason TEXT NOT NULL,
      from_address TEXT NOT NULL,
      to_address TEXT NOT NULL,
      subject TEXT,
      body TEXT NOT NULL,
      media_urls TEXT NOT NULL DEFAULT '[]',
      external_id TEXT,
      error TEXT,
      attempts INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      acknowledged_at TEXT
    )`,
    `CREATE INDEX dead_letters_pending ON dead_letters (agent_id, acknowledged_at, created_at)`,
    `CREATE TABLE usage_records (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      channel TEXT NOT NULL,
      action TEXT NOT NULL,
      quantity ${t.real} NOT NULL,
      provider_cost ${t.money},
      tariff_cost ${t.money} NOT NULL,
      external_id TEXT,
      created_at TEXT NOT NULL
    )`,
    `CREATE INDEX usage_records_agent_time ON usage_records (agent_id, created_at)`,
    `CREATE INDEX usage_records_external ON usage_records (external_id)`,
    `CREATE TABLE calls (
      call_sid TEXT PRIMARY KEY,
      session_id TEXT NOT NULL UNIQUE,
      agent_id TEXT NOT NULL,
      direction TEXT NOT NULL,
      mode TEXT NOT NULL,
      from_address TEXT NOT NULL,
      to_address TEXT NOT NULL,
      status TEXT NOT NULL,
      duration_seconds INTEGER NOT NULL DEFAULT 0,
      cost ${t.money},
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    `CREATE INDEX calls_agent ON calls (agent_id, created_at)`,
    `CREATE TABLE idempotency_keys (
      scope TEXT NOT NULL,
      idempotency_key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      status INTEGER NOT NULL,
      response TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (scope, idempotency_key)
    )`,
    `CREATE TABLE settings (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  ];
}
