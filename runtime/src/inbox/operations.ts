import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { requireAgent } from '../agents/operations.js';
import { AGENT_OPERATIONS } from '../protocol/operations.js';

/**
 * Inbox operations every agent actor answers. A read only reads (its entry keeps it out of the
 * mailbox); an acknowledgement runs in the mailbox, so an agent's acknowledgements apply one at a time.
 */
export function inboxOperations(): AgentOperation[] {
  return [
    defineOperation(AGENT_OPERATIONS.inboxRead, {
      needs: ['inbox'],
      async handle({ actor, store }, request) {
        const { agentId } = requireAgent(actor);
        // Every cursor up to the last one read here is committed: a cursor is taken in its entry's commit.
        const { lastCursor, ackedCursor } = await store.inbox.position(agentId);
        const after = request.after ?? ackedCursor;
        if (after > lastCursor) {
          throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `after: ${after} is past the last cursor of this inbox (${lastCursor}).`);
        }
        const filter = { ...(request.channel ? { channel: request.channel } : {}), ...(request.conversationId ? { conversationId: request.conversationId } : {}) };
        const found = await store.inbox.read(agentId, after, request.limit + 1, filter);
        const entries = found.slice(0, request.limit);
        const hasMore = found.length > request.limit;
        const last = entries.at(-1)?.cursor ?? after;
        // With nothing more to read, every entry up to lastCursor was looked at (a filter may have skipped some).
        const nextCursor = hasMore ? last : Math.max(last, lastCursor);
        return { agentId, entries, nextCursor, hasMore, ackedCursor, lastCursor };
      },
    }),
    defineOperation(AGENT_OPERATIONS.inboxAck, {
      needs: ['inbox'],
      async handle({ actor, store }, request) {
        const { agentId } = requireAgent(actor);
        if (!(await store.inbox.acknowledge(agentId, request.upTo))) {
          const { lastCursor } = await store.inbox.position(agentId);
          throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `upTo: ${request.upTo} is past the last cursor of this inbox (${lastCursor}).`);
        }
        const { lastCursor, ackedCursor } = await store.inbox.position(agentId);
        return { agentId, ackedCursor, lastCursor };
      },
    }),
  ];
}
