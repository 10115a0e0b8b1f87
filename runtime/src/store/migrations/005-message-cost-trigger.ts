import type { Migration } from '../migrate.js';

/**
 * A delivery receipt's price reaches the usage record through the database: the UPDATE of the
 * outbound message's cost carries it to the usage records of the same provider id, so a receipt is
 * one statement on the hot path instead of two (the message, then its usage).
 */
export const messageCostTrigger: Migration = {
  version: 5,
  name: 'message-cost-trigger',
  statements: [
    `CREATE TRIGGER messages_cost_to_usage AFTER UPDATE OF cost ON messages
     FOR EACH ROW WHEN NEW.cost IS NOT NULL AND NEW.direction = 'outbound' AND NEW.external_id IS NOT NULL
     BEGIN
       UPDATE usage_records SET provider_cost = NEW.cost WHERE agent_id = NEW.agent_id AND external_id = NEW.external_id;
     END`,
  ],
  postgres: [
    `CREATE FUNCTION messages_cost_to_usage() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       UPDATE usage_records SET provider_cost = NEW.cost WHERE agent_id = NEW.agent_id AND external_id = NEW.external_id;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER messages_cost_to_usage AFTER UPDATE OF cost ON messages
     FOR EACH ROW WHEN (NEW.cost IS NOT NULL AND NEW.direction = 'outbound' AND NEW.external_id IS NOT NULL)
     EXECUTE FUNCTION messages_cost_to_usage()`,
  ],
};
