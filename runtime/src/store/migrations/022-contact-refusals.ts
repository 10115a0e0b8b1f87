import type { Migration } from '../migrate.js';

/**
 * Contacting people lawfully (issue 35, second part). `agents.require_consent` holds the consent kinds
 * (a JSON list of `transactional`, `marketing`, `automated-call`) an agent must find on record before it
 * contacts a person; `[]`, the default, asks none. `contact_refusals` keeps every contact the policy
 * refused (RECIPIENT_OPTED_OUT, OUTSIDE_CALLING_HOURS, CONSENT_REQUIRED): which agent, channel and
 * person, the code and the sentence the agent was given, and when, for the operator to read.
 */
export const contactRefusals: Migration = {
  version: 22,
  name: 'contact-refusals',
  statements: [
    "ALTER TABLE agents ADD COLUMN require_consent TEXT NOT NULL DEFAULT '[]'",
    `CREATE TABLE contact_refusals (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      channel TEXT NOT NULL,
      address TEXT NOT NULL,
      code TEXT NOT NULL,
      is_call INTEGER NOT NULL,
      message TEXT NOT NULL,
      at TEXT NOT NULL
    )`,
    'CREATE INDEX contact_refusals_at ON contact_refusals (at, id)',
    'CREATE INDEX contact_refusals_agent ON contact_refusals (agent_id, at)',
    'CREATE INDEX contact_refusals_address ON contact_refusals (address)',
  ],
};
