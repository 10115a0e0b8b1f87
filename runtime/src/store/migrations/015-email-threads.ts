import type { Migration } from '../migrate.js';

/**
 * Email threads: an inbound email's RFC 5322 Message-ID, and on a reply the Message-ID it answers and
 * the thread's, so that the provider call (first, or re-driven after a crash) carries `In-Reply-To` and
 * `References`.
 */
export const emailThreads: Migration = {
  version: 15,
  name: 'email-threads',
  statements: ['ALTER TABLE messages ADD COLUMN email_message_id TEXT', 'ALTER TABLE messages ADD COLUMN in_reply_to TEXT', 'ALTER TABLE messages ADD COLUMN email_references TEXT'],
};
