import type { Migration } from '../migrate.js';

/** SMS opt-outs: after STOP a remote number may not be texted from that agent address until START. */
export const messaging: Migration = {
  version: 2,
  name: 'messaging',
  statements: [
    `CREATE TABLE opt_outs (
      channel TEXT NOT NULL,
      agent_address TEXT NOT NULL,
      remote_address TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (channel, agent_address, remote_address)
    )`,
  ],
};
