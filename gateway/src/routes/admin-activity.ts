import { Type, type Static } from '@sinclair/typebox';
import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { CallListQuery, CallListResponse, CallResponse } from '../schemas/calls.js';
import { errorResponses } from '../schemas/common.js';
import { ConversationListQuery, ConversationListResponse, ConversationQuery, ConversationResponse } from '../schemas/conversations.js';
import { findCall, listCalls, RECORDING_RESPONSES, recordingAudio, withRecordingLink } from './calls.js';
import { checkConversationId } from './conversations.js';
import type { RouteDeps } from './deps.js';

const AgentConversationsQuery = Type.Omit(ConversationListQuery, ['agentId']);
type AgentConversationsQuery = Static<typeof AgentConversationsQuery>;
const AgentConversationQuery = Type.Omit(ConversationQuery, ['agentId']);
type AgentConversationQuery = Static<typeof AgentConversationQuery>;

/**
 * What the admin UI's conversation and call pages read, under /admin/api so the session cookie is
 * taken (the agent API stays bearer-only): the same agent operations and call-log port as
 * /api/v1/conversations and /api/v1/calls, through the same functions.
 */
export function adminActivityRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Admin', auth: 'orchestrator' as const };
  const noStore = { 'cache-control': 'no-store' };
  const knownAgent = async (agentId: string) => {
    if (!(await ports.admin.agent(agentId))) fail(ErrorCodes.NOT_FOUND, `No agent ${agentId}.`);
    return agentId;
  };
  return [
    {
      ...common,
      method: 'GET',
      path: '/admin/api/agents/:agentId/conversations',
      operationId: 'adminConversations',
      summary: "An agent's conversations, latest activity first, as GET /api/v1/conversations answers them.",
      query: AgentConversationsQuery,
      responses: { 200: { description: 'A page of conversations.', schema: ConversationListResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ params, query }: RouteContext<unknown, AgentConversationsQuery>) {
        const agentId = await knownAgent(params.agentId!);
        return json(200, await ports.agents.call('conversations', agentId, query), noStore);
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/agents/:agentId/conversations/:conversationId',
      operationId: 'adminConversation',
      summary: "One of an agent's conversations: its messages and calls across channels, newest first, as GET /api/v1/conversations/{conversationId} answers it.",
      query: AgentConversationQuery,
      responses: { 200: { description: 'The timeline.', schema: ConversationResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ params, query }: RouteContext<unknown, AgentConversationQuery>) {
        const conversationId = params.conversationId ?? '';
        checkConversationId(conversationId);
        const agentId = await knownAgent(params.agentId!);
        return json(200, await ports.agents.call('conversation', agentId, { ...query, conversationId }), noStore);
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/calls',
      operationId: 'adminCalls',
      summary: 'Calls newest first, of one agent (agentId) or of all, as GET /api/v1/calls answers them.',
      query: CallListQuery,
      responses: { 200: { description: 'A page of calls.', schema: CallListResponse }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query }: RouteContext<unknown, CallListQuery>) {
        const { agentId, ...filter } = query;
        const page = await listCalls(ports, agentId, filter);
        return json(200, { ...page, calls: page.calls.map((call) => withRecordingLink(deps, call)) }, noStore);
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/calls/:callId',
      operationId: 'adminCall',
      summary: 'One call with its summary, per-turn latency ledger and transcript, as GET /api/v1/calls/{callId} answers it.',
      responses: { 200: { description: 'The call.', schema: CallResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ params }: RouteContext) {
        return json(200, await findCall(deps, params.callId ?? '', undefined), noStore);
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/calls/:callId/recording',
      operationId: 'adminCallRecording',
      summary: "One call's recording (WAV), as GET /api/v1/calls/{callId}/recording serves it, for the call page's player.",
      responses: { ...RECORDING_RESPONSES, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ params, request }: RouteContext) {
        return recordingAudio(deps, params.callId ?? '', undefined, request.headers.range);
      },
    },
  ];
}
