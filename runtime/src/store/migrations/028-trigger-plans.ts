import type { Migration } from '../migrate.js';

/** The PL/pgSQL functions behind the store's triggers (migrations 5, 16, 19 and 20). */
const TRIGGER_FUNCTIONS = ['inbox_append', 'messages_cost_to_usage', 'conversation_touch', 'conversation_untouch'];

/**
 * PostgreSQL only: the trigger functions plan their statements once per connection and keep the plan.
 * PL/pgSQL's default (`plan_cache_mode = auto`) planned each of their statements again on every row
 * with its values (a custom plan, each time estimated cheaper than the generic one): in a profile of
 * the cluster bench, planning was a fifth of PostgreSQL's CPU and the trigger functions two fifths, most
 * of it the inbox append's condition, whose subqueries are each one primary-key lookup either way. A
 * receipt's commit (status and inbox entry) cost PostgreSQL about 18 % less CPU so (BENCHMARKS.md).
 * SQLite has no plans to keep: nothing to do there. `CREATE OR REPLACE FUNCTION` drops a function's
 * settings, so `inboxAppendTrigger` (which a migration adding an inbox kind calls) carries the setting in
 * the definition itself; a later migration redefining one of the others must say it again
 * (`store-conformance-postgres.test.ts` checks all four after every migration).
 */
export const triggerPlans: Migration = {
  version: 28,
  name: 'trigger-plans',
  statements: [],
  postgres: TRIGGER_FUNCTIONS.map((name) => `ALTER FUNCTION ${name}() SET plan_cache_mode = force_generic_plan`),
};
