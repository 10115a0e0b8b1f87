import type { Migration } from '../migrate.js';

/**
 * WhatsApp templates (issue 36). `messages.template` holds the template an outbound message was sent
 * as (JSON `{id?, name?, language?, variables?}`), null for a free-form one: a send that another node
 * finishes (the outbox) sends the same template again, not its placeholder body.
 */
export const messageTemplates: Migration = {
  version: 23,
  name: 'message-templates',
  statements: ['ALTER TABLE messages ADD COLUMN template TEXT'],
};
