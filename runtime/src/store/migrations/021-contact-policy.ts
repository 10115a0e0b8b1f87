import type { Migration } from '../migrate.js';

/**
 * Contacting people lawfully (issue 35). `contact_blocks` is the do-not-contact list: an address
 * (an E.164 number, a lower-cased email address, a LINE user id) no agent of the operator (`scope`
 * `*`) or one agent (`scope` its id) may contact, with where the entry came from and when;
 * `contact_block_log` keeps every addition and removal with who and why, so a removal is never
 * silent. `consents` holds consent records per address, scope and kind (transactional, marketing,
 * automated-call), with their source and evidence; a revoked one keeps its row with `revoked_at`.
 */
export const contactPolicy: Migration = {
  version: 21,
  name: 'contact-policy',
  statements: [
    `CREATE TABLE contact_blocks (
      address TEXT NOT NULL,
      scope TEXT NOT NULL,
      source TEXT NOT NULL,
      reason TEXT,
      actor TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (address, scope)
    )`,
    `CREATE TABLE contact_block_log (
      id TEXT PRIMARY KEY,
      address TEXT NOT NULL,
      scope TEXT NOT NULL,
      action TEXT NOT NULL,
      source TEXT NOT NULL,
      reason TEXT,
      actor TEXT NOT NULL,
      at TEXT NOT NULL
    )`,
    'CREATE INDEX contact_block_log_address ON contact_block_log (address, at)',
    `CREATE TABLE consents (
      address TEXT NOT NULL,
      scope TEXT NOT NULL,
      kind TEXT NOT NULL,
      source TEXT NOT NULL,
      evidence TEXT,
      recorded_at TEXT NOT NULL,
      revoked_at TEXT,
      PRIMARY KEY (address, scope, kind)
    )`,
  ],
};
