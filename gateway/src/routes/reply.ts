import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import type { ReplyWaits } from '../replies/reply-waits.js';
import type { ReplyWaitCap } from '../replies/wait-cap.js';
import { ErrorBody, errorResponses } from '../schemas/common.js';
import { ConversationId } from '../schemas/inbox.js';
import { ReplyQuery, ReplyResponse } from '../schemas/reply.js';
import { resolveAgentId } from './agent-access.js';
import type { RouteDeps } from './deps.js';

const CONVERSATION_ID = new RegExp(ConversationId.pattern as string);

/**
 * Waiting for a reply: the first inbound message or voicemail in a conversation after a cursor, or a
 * bounded wait for one; a wait (`wait` > 0) counts toward the principal's cap.
 */
export function replyRoutes(deps: RouteDeps, waits: ReplyWaits, cap: ReplyWaitCap): RouteDefinition[] {
  const { ports } = deps;
  return [
    {
      tag: 'Inbox',
      auth: 'token',
      scope: 'read',
      method: 'GET',
      path: '/api/v1/conversations/:conversationId/reply',
      operationId: 'waitForReply',
      summary: "The counterpart's first reply in a conversation after a cursor (an inbound message on any channel, or a voicemail), waiting up to `wait` seconds (at most 25) for one.",
      description:
        'A long poll: answers at once when a reply is there, else when one arrives (within a second of its webhook) or after `wait` seconds with `reply: null` and the `cursor` to pass as `after` to wait again. Another agent\'s conversation, or one with no entry in this agent\'s inbox, is 404. For waits longer than 25 s, call again with the cursor, or use the MCP tool `comms_wait_for_reply` as a task. A principal has at most `REPLY_WAITS_PER_PRINCIPAL` waits at once (long polls with `wait` > 0, MCP waits and reply tasks still waiting; client tokens of one agent together): one more is 429 `RATE_LIMITED` with `Retry-After`.',
      query: ReplyQuery,
      responses: {
        200: { description: 'The reply, or none in time and the cursor to wait after.', schema: ReplyResponse },
        ...errorResponses(400, 401, 403, 404),
        429: { description: 'Rate limited (RATE_LIMITED), or the principal already has `REPLY_WAITS_PER_PRINCIPAL` waits for a reply; see Retry-After.', schema: ErrorBody },
      },
      async handler({ params, query, principal, request }: RouteContext<unknown, ReplyQuery>) {
        const agentId = resolveAgentId(principal, query.agentId);
        const conversationId = params.conversationId ?? '';
        if (!CONVERSATION_ID.test(conversationId)) fail(ErrorCodes.VALIDATION_FAILED, `conversationId must match ${ConversationId.pattern} (a conversationId of an inbox entry).`);
        const { after } = await ports.replies.start(agentId, conversationId, query.after);
        const release = query.wait > 0 ? await cap.hold(principal, agentId, query.wait * 1000) : undefined;
        let found;
        try {
          found = await waits.wait(agentId, conversationId, after, query.wait * 1000, request.signal);
        } finally {
          release?.();
        }
        return json(200, { agentId, conversationId, after, reply: found.reply, cursor: found.cursor, timedOut: found.reply === null }, { 'cache-control': 'no-store' });
      },
    },
  ];
}
