import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { errorResponses } from '../schemas/common.js';
import {
  ConversationListQuery,
  ConversationListResponse,
  ConversationQuery,
  ConversationResponse,
  LinkContactsBody,
  LinkContactsResponse,
} from '../schemas/conversations.js';
import { ConversationId } from '../schemas/inbox.js';
import { resolveAgentId } from './agent-access.js';
import type { RouteDeps } from './deps.js';

const CONVERSATION_ID = new RegExp(ConversationId.pattern as string);

/** Refuses what is not a conversation id, before any agent is asked (the admin API's timeline checks it the same way). */
export function checkConversationId(conversationId: string): void {
  if (!CONVERSATION_ID.test(conversationId)) fail(ErrorCodes.VALIDATION_FAILED, 'conversationId must be a conversation id (cnv_…) as the inbox names it.');
}

/** Conversations: one agent and one counterpart across channels, their timelines, and the links an agent makes. */
export function conversationRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Inbox', auth: 'token' as const };
  return [
    {
      ...common,
      scope: 'read',
      method: 'GET',
      path: '/api/v1/conversations',
      operationId: 'listConversations',
      summary: "The agent's conversations, latest activity first: each counterpart per channel, counts of messages and calls.",
      query: ConversationListQuery,
      responses: { 200: { description: 'A page of conversations.', schema: ConversationListResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ query, principal }: RouteContext<unknown, ConversationListQuery>) {
        const agentId = resolveAgentId(principal, query.agentId);
        const { agentId: _named, ...page } = query;
        return json(200, await ports.agents.call('conversations', agentId, page), { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      scope: 'read',
      method: 'GET',
      path: '/api/v1/conversations/:conversationId',
      operationId: 'getConversation',
      summary: 'One conversation: its messages and calls across channels, newest first, call transcripts included.',
      query: ConversationQuery,
      responses: { 200: { description: 'The timeline.', schema: ConversationResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ params, query, principal }: RouteContext<unknown, ConversationQuery>) {
        const conversationId = params.conversationId ?? '';
        checkConversationId(conversationId);
        const { agentId: named, ...page } = query;
        return json(200, await ports.agents.call('conversation', resolveAgentId(principal, named), { ...page, conversationId }), { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      scope: 'configure',
      method: 'POST',
      path: '/api/v1/link-contacts',
      operationId: 'linkContacts',
      summary: "Make several addresses of one counterpart one conversation (a customer who texts, then emails): the first address's conversation takes the others.",
      body: LinkContactsBody,
      responses: { 200: { description: 'The conversation they are now.', schema: LinkContactsResponse }, ...errorResponses(400, 401, 403, 404, 415, 429) },
      async handler({ body, principal }: RouteContext<LinkContactsBody>) {
        const agentId = resolveAgentId(principal, body.agentId);
        return json(200, await ports.agents.call('linkContacts', agentId, { addresses: body.addresses }));
      },
    },
  ];
}
