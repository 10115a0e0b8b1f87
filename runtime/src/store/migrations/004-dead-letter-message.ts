import type { Migration } from '../migrate.js';

/**
 * A dead letter names the message it was made from. Writing the letter is then enough to end the
 * message's delivery (one statement on the hot path instead of an insert plus an update).
 */
export const deadLetterMessage: Migration = {
  version: 4,
  name: 'dead-letter-message',
  statements: [
    'ALTER TABLE dead_letters ADD COLUMN message_id TEXT',
    'CREATE INDEX dead_letters_message ON dead_letters (message_id)',
  ],
};
