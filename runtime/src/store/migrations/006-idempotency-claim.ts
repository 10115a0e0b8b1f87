import type { Migration } from '../migrate.js';

/**
 * An Idempotency-Key of a send is claimed (status 0) in the commit that stores the message, and names
 * it: a repeat while the send is in flight is told to wait instead of sending again, and the node that
 * finishes a send another node started finds the key to answer. Sends stored and never sent (their
 * process died during the provider call) are found at start through a small partial index.
 */
export const idempotencyClaim: Migration = {
  version: 6,
  name: 'idempotency-claim',
  statements: [
    'ALTER TABLE idempotency_keys ADD COLUMN message_id TEXT',
    'CREATE INDEX idempotency_keys_message ON idempotency_keys (message_id)',
    "CREATE INDEX messages_unsent ON messages (created_at) WHERE external_id IS NULL AND direction = 'outbound'",
  ],
};
