import type { Migration } from '../migrate.js';

/**
 * One-click unsubscribe for email (issue 36, RFC 8058): `agents.list_unsubscribe` is 1 when every email
 * the agent sends carries `List-Unsubscribe` and `List-Unsubscribe-Post`; 0, the default, when not.
 */
export const listUnsubscribe: Migration = {
  version: 25,
  name: 'list-unsubscribe',
  statements: ['ALTER TABLE agents ADD COLUMN list_unsubscribe INTEGER NOT NULL DEFAULT 0'],
};
