import type { Migration } from '../migrate.js';

/**
 * An operator's waiver of calling hours for one agent (issue 35): `agents.calling_hours_override` holds
 * JSON `{reason, setAt}` while it stands, null otherwise; the do-not-contact list and consent still apply.
 */
export const callingHoursOverride: Migration = {
  version: 26,
  name: 'calling-hours-override',
  statements: ['ALTER TABLE agents ADD COLUMN calling_hours_override TEXT'],
};
