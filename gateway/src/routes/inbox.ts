import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { errorResponses } from '../schemas/common.js';
import { InboxAckBody, InboxAckResponse, InboxQuery, InboxResponse } from '../schemas/inbox.js';
import { resolveAgentId } from './agent-access.js';
import type { RouteDeps } from './deps.js';

/** The agent's inbox: read from a cursor (idempotent), acknowledge up to one (durable). */
export function inboxRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Inbox', auth: 'token' as const, scope: 'read' as const };
  return [
    {
      ...common,
      method: 'GET',
      path: '/api/v1/inbox',
      operationId: 'readInbox',
      summary: "Entries of the agent's inbox after a cursor, oldest first: inbound messages and outbound status changes. Reading acknowledges nothing.",
      query: InboxQuery,
      responses: { 200: { description: 'Entries in cursor order.', schema: InboxResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ query, principal }: RouteContext<unknown, InboxQuery>) {
        const agentId = resolveAgentId(principal, query.agentId);
        const { agentId: _named, ...request } = query;
        return json(200, await ports.agents.call('inboxRead', agentId, request), { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/api/v1/inbox/ack',
      operationId: 'acknowledgeInbox',
      summary: "Acknowledge the agent's inbox up to a cursor: later reads without `after` start there.",
      body: InboxAckBody,
      responses: { 200: { description: 'The acknowledged cursor.', schema: InboxAckResponse }, ...errorResponses(400, 401, 403, 404, 415, 429) },
      async handler({ body, principal }: RouteContext<InboxAckBody>) {
        const agentId = resolveAgentId(principal, body.agentId);
        return json(200, await ports.agents.call('inboxAck', agentId, { upTo: body.upTo }));
      },
    },
  ];
}
