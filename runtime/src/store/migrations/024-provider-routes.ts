import type { Migration } from '../migrate.js';

/**
 * A channel served by several providers (issue 36). `pool_entries.provider` names the provider a
 * sender is held at ('' for the channel's own provider); `agent_channels.senders` keeps the senders an
 * agent holds at the others (JSON `{"telnyx": "+1…"}`, null when none), read with the agent; and
 * `messages.provider` records which provider sent or delivered each message.
 */
export const providerRoutes: Migration = {
  version: 24,
  name: 'provider-routes',
  statements: [
    "ALTER TABLE pool_entries ADD COLUMN provider TEXT NOT NULL DEFAULT ''",
    'ALTER TABLE agent_channels ADD COLUMN senders TEXT',
    'ALTER TABLE messages ADD COLUMN provider TEXT',
  ],
};
