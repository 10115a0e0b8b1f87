import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { AgentDetail, CallbackLog, CallbackLogQuery, CallbackReplayBody, CallbackReplayResponse, DeadLetterList, ListFilter, MessageLog } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import { DeprovisionResponse } from '../schemas/provisioning.js';
import type { RouteDeps } from './deps.js';

/** Admin API for the dashboard's drill-downs: agent detail, the message log, dead letters, and an agent's callback delivery log and replay. */
export function adminOpsRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const { reads } = ports.admin;
  const common = { tag: 'Admin', auth: 'orchestrator' as const };
  return [
    {
      ...common,
      method: 'GET',
      path: '/admin/api/agents/:agentId',
      operationId: 'adminAgentDetail',
      summary: 'One agent: channels, limits, usage, recent messages and calls, dead letters.',
      responses: { 200: { description: 'The agent.', schema: AgentDetail }, ...errorResponses(401, 403, 404, 429) },
      async handler({ params }: RouteContext) {
        const agentId = params.agentId!;
        const view = await ports.admin.agent(agentId);
        if (!view) fail(ErrorCodes.NOT_FOUND, `No agent ${agentId}.`);
        const limits = (await ports.agents.call('getLimits', agentId)).limits;
        return json(200, {
          agent: { ...view, callbackUrl: view.callbackUrl ?? null },
          limits: Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== null)),
          usage: await reads.usageTotals(agentId),
          ...(await reads.recentActivity(agentId)),
        }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/admin/api/agents/:agentId',
      operationId: 'adminDeprovision',
      summary: 'Deprovision an agent: delete it with its content (usage records stay), revoke its tokens, return its channels to their pools.',
      responses: { 200: { description: 'Deprovisioned.', schema: DeprovisionResponse }, ...errorResponses(401, 403, 404, 429) },
      async handler({ params }: RouteContext) {
        return json(200, await ports.agents.call('deprovision', params.agentId!));
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/messages',
      operationId: 'adminMessageLog',
      summary: 'The message log, newest first, filtered by agent, channel, direction, status and time.',
      query: ListFilter,
      responses: { 200: { description: 'Messages.', schema: MessageLog }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query }: RouteContext<unknown, ListFilter>) {
        return json(200, { messages: await reads.messages(query) }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/dead-letters',
      operationId: 'adminDeadLetters',
      summary: 'Dead letters, newest first, filtered by agent, channel, direction, status (pending or acknowledged) and time.',
      query: ListFilter,
      responses: { 200: { description: 'Dead letters.', schema: DeadLetterList }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query }: RouteContext<unknown, ListFilter>) {
        return json(200, { deadLetters: await reads.deadLetters(query) }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/agents/:agentId/callback-log',
      operationId: 'adminCallbackLog',
      summary: "An agent's callback delivery log, newest first: one row per attempt (status or network error, latency, answer excerpt), and its endpoint's state.",
      query: CallbackLogQuery,
      responses: { 200: { description: 'A page of the log.', schema: CallbackLog }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ params, query }: RouteContext<unknown, CallbackLogQuery>) {
        const agentId = params.agentId!;
        if (!(await ports.admin.agent(agentId))) fail(ErrorCodes.NOT_FOUND, `No agent ${agentId}.`);
        return json(200, await reads.callbackLog(agentId, query), { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/agents/:agentId/callback-replay',
      operationId: 'adminCallbackReplay',
      summary:
        "Post an agent's callback events again, on a new round of the retry schedule: one event (`eventId`), or every event first posted in [`since`, `until`). Enables the agent's callback endpoint again.",
      body: CallbackReplayBody,
      responses: { 200: { description: 'Queued.', schema: CallbackReplayResponse }, ...errorResponses(400, 401, 403, 404, 415, 429) },
      async handler({ params, body }: RouteContext<CallbackReplayBody>) {
        const { eventId, since, until } = body;
        if (eventId !== undefined ? since !== undefined || until !== undefined : since === undefined || until === undefined) {
          fail(ErrorCodes.VALIDATION_FAILED, 'Name either eventId, or since and until.');
        }
        if (since !== undefined && until !== undefined && Date.parse(since) >= Date.parse(until)) fail(ErrorCodes.VALIDATION_FAILED, 'since must be before until.');
        return json(200, await ports.agents.call('replayCallbacks', params.agentId!, eventId !== undefined ? { eventId } : { since, until }));
      },
    },
  ];
}
