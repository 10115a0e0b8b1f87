import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { defineOperation, type AgentOperation, type OperationContext } from '../actors/operation.js';
import { requireAgent } from '../agents/operations.js';
import { AGENT_OPERATIONS, type OperationRequest } from '../protocol/operations.js';
import type { DeliveryService } from './delivery-service.js';

/**
 * The operator's replay of an agent's callbacks, run by the agent's actor wherever it lives (the node
 * that holds the agent queues the work). One event by id, or the events created in [since, until).
 */
export function deliveryOperations(delivery: Pick<DeliveryService, 'replay'>): AgentOperation[] {
  return [defineOperation(AGENT_OPERATIONS.replayCallbacks, { needs: [], handle: replay })];

  async function replay({ actor }: OperationContext, request: OperationRequest<'replayCallbacks'>) {
    const { agentId } = requireAgent(actor);
    const { eventId, since, until } = request;
    const oneEvent = eventId !== undefined && since === undefined && until === undefined;
    const range = eventId === undefined && since !== undefined && until !== undefined;
    if (!oneEvent && !range) {
      throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'Replay names either eventId, or since and until.');
    }
    if (eventId !== undefined) {
      const eventIds = await delivery.replay(agentId, { eventId });
      if (eventIds.length === 0) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No callback event ${eventId} for agent ${agentId}.`);
      return { agentId, replayed: eventIds.length, eventIds };
    }
    const from = Date.parse(since!);
    const to = Date.parse(until!);
    if (Number.isNaN(from) || Number.isNaN(to) || from >= to) {
      throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'since and until are ISO 8601 times, since before until.');
    }
    const eventIds = await delivery.replay(agentId, { since: new Date(from).toISOString(), until: new Date(to).toISOString() });
    return { agentId, replayed: eventIds.length, eventIds };
  }
}
