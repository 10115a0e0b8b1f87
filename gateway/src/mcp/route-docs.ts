import { Type } from '@sinclair/typebox';
import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import type { RouteDefinition } from '../http/types.js';
import { AgentId, errorResponses } from '../schemas/common.js';

// The MCP transports, not the REST pipeline, read these shapes: a JSON-RPC message has more members
// than the one named here, and tool arguments are checked against each tool's own input schema.
const JsonRpc = Type.Object({ jsonrpc: Type.Literal('2.0') }, { description: 'A JSON-RPC 2.0 message of the Model Context Protocol.', additionalProperties: true });
const McpQuery = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'Orchestrator, team or client token (or send Authorization: Bearer).' })),
    agentId: Type.Optional(AgentId),
  },
  { additionalProperties: true },
);

/** Served by the MCP transports on the socket layer, never by the REST pipeline. */
const transportOnly = (): never => fail(ErrorCodes.NOT_FOUND, 'Served by the MCP transport.');

/**
 * The MCP endpoints, for the OpenAPI document only: the transports attach to the socket layer
 * (see mcp/attach.ts) and answer these paths before the REST pipeline would.
 */
export const mcpRouteDocs: readonly RouteDefinition[] = [
  {
    method: 'GET',
    path: '/sse',
    operationId: 'mcpSse',
    summary: 'MCP over HTTP+SSE: opens the event stream; the first event `endpoint` names the POST URL. With agentId the session receives that agent\'s inbound messages.',
    description: 'Deprecated by the MCP specification; kept for older clients. Current clients use `/mcp`.',
    deprecated: true,
    tag: 'MCP',
    auth: 'token',
    query: McpQuery,
    responses: { 200: { description: 'text/event-stream', contentType: 'text/event-stream' }, ...errorResponses(401, 403, 429) },
    handler: transportOnly,
  },
  {
    method: 'POST',
    path: '/messages',
    operationId: 'mcpSseMessage',
    summary:
      'MCP over HTTP+SSE: a JSON-RPC message for the session named by ?sessionId, with Authorization: Bearer and the token the session was opened with; answers arrive on the stream.',
    deprecated: true,
    tag: 'MCP',
    auth: 'token',
    body: JsonRpc,
    query: Type.Object({ sessionId: Type.String() }, { additionalProperties: true }),
    responses: { 202: { description: 'Accepted.' }, ...errorResponses(400, 401, 403, 404, 413, 415) },
    handler: transportOnly,
  },
  ...(['POST', 'GET', 'DELETE'] as const).map(
    (method): RouteDefinition => ({
      method,
      path: '/mcp',
      operationId: `mcpStreamable${method[0]}${method.slice(1).toLowerCase()}`,
      summary: {
        POST: 'MCP Streamable HTTP: a stateless 2026-07-28 request (version in `_meta`), or a 2025-era message (initialize opens a session, returned in Mcp-Session-Id).',
        GET: 'MCP Streamable HTTP (2025-era sessions): open the server-to-client stream for notifications and sampling requests.',
        DELETE: 'MCP Streamable HTTP (2025-era sessions): end the session.',
      }[method],
      ...(method === 'POST'
        ? {
            description:
              'A POST whose body carries `_meta` `io.modelcontextprotocol/protocolVersion` (or whose `MCP-Protocol-Version` header names 2026-07-28) is answered statelessly, no session: `server/discover`, `tools/list`, `tools/call` (a placed call answered as a task when the request declares the `io.modelcontextprotocol/tasks` extension), `tasks/get`, `tasks/update`, `tasks/cancel`, `prompts/list`, agent inboxes as resources (`resources/list`, `resources/templates/list`, `resources/read`), and `subscriptions/listen`, answered as an event stream of `notifications/resources/updated` that stays open. Any other POST without `Mcp-Session-Id` must be `initialize`.',
          }
        : {}),
      tag: 'MCP',
      auth: 'token',
      ...(method === 'POST' ? { body: JsonRpc } : {}),
      responses: { 200: { description: 'JSON or text/event-stream.' }, ...errorResponses(400, 401, 403, 404) },
      handler: transportOnly,
    }),
  ),
];
