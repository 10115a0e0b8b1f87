import type { Migration } from '../migrate.js';
import { INBOX_APPEND_KINDS, inboxAppendTrigger } from './016-inbox-appends.js';

/**
 * An inbox entry conditional on its message having a status other than the one being written (the
 * append runs before the update), as `call-status` is for calls: a provider's receipt for a message
 * its process keeps needs no read to tell whether its status changes, and its statements stay the
 * plain ones that SQLite's group commit coalesces.
 */
const trigger = inboxAppendTrigger([
  ...INBOX_APPEND_KINDS,
  `WHEN 'message-status' THEN EXISTS (SELECT 1 FROM messages WHERE id = NEW.when_key AND status <> NEW.when_status)`,
]);

export const messageStatusEntries: Migration = {
  version: 20,
  name: 'message-status-entries',
  statements: ['DROP TRIGGER inbox_append', trigger.sqlite],
  // The trigger calls the function by name: replacing the function is enough.
  postgres: [trigger.postgresFunction],
};
