import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import type { Principal } from '@switchboard/runtime';
import type { GatewayApp } from '../http/app.js';
import { traceparentOf, withTrace } from '../http/trace.js';
import type { ReplyWaitCap } from '../replies/wait-cap.js';
import { InboxResources, serveModernInbox } from './inbox-resource.js';
import { ToolTasks, declaresTasks, serveTasks, TASK_TOOLS, TASKS_EXTENSION, type TaskPorts } from './tasks.js';
import { toolCatalog } from './tools.js';
import { VERSION } from '../version.js';

/**
 * How long a client may reuse list and `server/discover` answers (2026-07-28 caching hints). The
 * tools change only with a new gateway version; `private` because the answer is for an
 * authenticated caller.
 */
export const LIST_CACHE_HINT = { ttlMs: 5 * 60_000, cacheScope: 'private' } as const;

/**
 * The MCP server of one stateless 2026-07-28 request (the v2 SDK): the same tools as a 2025-era
 * session, acting as the request's caller. Made anew for each request, so it holds nothing
 * between requests and any gateway of a cluster can answer any request. Prompts are declared with an
 * empty list, so the revision's cacheable list results all answer (with their hints) rather than
 * "method not found"; the resources are the agents' inboxes (inbox-resource.ts). Calls placed for a
 * client that declares the Tasks extension are answered as tasks (tasks.ts).
 */
export function createModernToolServer(app: GatewayApp, principal: Principal, agentId: string | undefined, ports: TaskPorts, waitCap: ReplyWaitCap): Server {
  const server = new Server(
    { name: 'switchboard', version: VERSION },
    {
      // Subscribing is `subscriptions/listen` with `resourceSubscriptions` (see listen.ts).
      capabilities: { tools: {}, prompts: {}, resources: { subscribe: true }, extensions: { [TASKS_EXTENSION]: {} } },
      cacheHints: {
        'server/discover': LIST_CACHE_HINT,
        'tools/list': LIST_CACHE_HINT,
        'prompts/list': LIST_CACHE_HINT,
        'resources/list': LIST_CACHE_HINT,
        'resources/templates/list': LIST_CACHE_HINT,
      },
    },
  );
  const catalog = toolCatalog(app, principal, agentId);
  const tools = catalog.tools as Tool[];
  const tasks = new ToolTasks(ports, principal, waitCap);
  server.setRequestHandler('tools/list', async () => ({ tools }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    // The revision makes an unknown tool a protocol error (2025-era sessions keep their isError result).
    if (!tools.some((t) => t.name === request.params.name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}; list the tools to see what this server offers.`);
    }
    // A call placed, or a wait for a reply, for a client that declares the Tasks extension is answered with a task that follows it.
    const asTask = TASK_TOOLS.has(request.params.name) && declaresTasks(ctx.mcpReq.envelope);
    const args = request.params.arguments ?? {};
    const traceparent = traceparentOf((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.traceparent ?? request.params._meta?.traceparent);
    const result = (await catalog.call(request.params.name, args, principal, { signal: ctx.mcpReq.signal, asTask, ...withTrace(traceparent) })) as CallToolResult;
    const task = asTask ? await tasks.start(request.params.name, args, result) : undefined;
    if (task) return task as CallToolResult;
    return server.projectCallToolResult(result, tools.find((t) => t.name === request.params.name)?.outputSchema);
  });
  serveTasks(server, tasks);
  server.setRequestHandler('prompts/list', async () => ({ prompts: [] }));
  server.setRequestHandler('prompts/get', async (request) => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt ${request.params.name}; this server has none.`);
  });
  serveModernInbox(server, new InboxResources(app, principal, agentId));
  return server;
}
