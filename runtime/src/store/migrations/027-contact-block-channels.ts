import type { Migration } from '../migrate.js';

/**
 * A do-not-contact entry narrowed by the operator to some channels (issue 35): `contact_blocks.channels`
 * is a JSON array of the channels it still keeps the person from (`["sms"]`: texts, not calls); null, as
 * every entry starts, keeps them from every channel.
 */
export const contactBlockChannels: Migration = {
  version: 27,
  name: 'contact-block-channels',
  statements: ['ALTER TABLE contact_blocks ADD COLUMN channels TEXT'],
};
