import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Type } from '@sinclair/typebox';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Principal } from '@switchboard/runtime';
import type { GatewayApp } from '../http/app.js';
import { errorResult } from '../http/errors.js';
import { compileBody, type Check } from '../http/validation.js';
import { traceparentOf, withTrace } from '../http/trace.js';
import type { InboxSubscribers } from './inbox-subscribers.js';
import { callerOf } from './mcp-http.js';
import { scopeOf } from '../oauth/scopes.js';
import { VERSION } from '../version.js';
import { WAIT_FOR_REPLY, type ToolArguments } from '../replies/wait-tool.js';

/** Each MCP tool and the REST route it mirrors; a tool exists only while its route does. */
export const TOOL_ROUTES: readonly { name: string; method: 'GET' | 'POST' | 'PUT'; path: string; arguments?: ToolArguments }[] = [
  { name: 'comms_send_message', method: 'POST', path: '/api/v1/send-message' },
  { name: 'comms_make_call', method: 'POST', path: '/api/v1/make-call' },
  { name: 'comms_call_on_behalf', method: 'POST', path: '/api/v1/call-on-behalf' },
  { name: 'comms_send_voice_message', method: 'POST', path: '/api/v1/send-voice-message' },
  { name: 'comms_transfer_call', method: 'POST', path: '/api/v1/transfer-call' },
  { name: 'comms_set_callback_url', method: 'PUT', path: '/api/v1/callback-url' },
  { name: 'comms_get_waiting_messages', method: 'GET', path: '/api/v1/waiting-messages' },
  { name: 'comms_get_channel_status', method: 'GET', path: '/api/v1/channel-status' },
  { name: 'comms_get_usage', method: 'GET', path: '/api/v1/usage' },
  { name: 'comms_get_billing', method: 'GET', path: '/api/v1/billing' },
  { name: 'comms_provision_channels', method: 'POST', path: '/api/v1/provision' },
  { name: 'comms_deprovision_channels', method: 'POST', path: '/api/v1/deprovision' },
  { name: 'comms_get_call', method: 'GET', path: '/api/v1/calls/:callId' },
  { name: 'comms_inbox_read', method: 'GET', path: '/api/v1/inbox' },
  { name: 'comms_inbox_ack', method: 'POST', path: '/api/v1/inbox/ack' },
  { name: 'comms_list_conversations', method: 'GET', path: '/api/v1/conversations' },
  { name: 'comms_get_conversation', method: 'GET', path: '/api/v1/conversations/:conversationId' },
  { name: 'comms_link_contacts', method: 'POST', path: '/api/v1/link-contacts' },
  { name: 'comms_record_consent', method: 'POST', path: '/api/v1/consents' },
  { name: 'comms_revoke_consent', method: 'POST', path: '/api/v1/consents/revoke' },
  { name: 'comms_check_consent', method: 'GET', path: '/api/v1/consents' },
  { name: 'comms_do_not_contact', method: 'POST', path: '/api/v1/do-not-contact' },
  { name: 'comms_wait_for_reply', method: 'GET', path: '/api/v1/conversations/:conversationId/reply', arguments: WAIT_FOR_REPLY },
];

/** A tool's input schema: its route's body or query, plus the route's path parameters (required strings). */
function toolInput(route: { path: string; body?: unknown; query?: unknown }): Tool['inputSchema'] {
  const schema = JSON.parse(JSON.stringify(route.body ?? route.query ?? { type: 'object', properties: {}, additionalProperties: false })) as Tool['inputSchema'] & { required?: string[] };
  for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    schema.properties = { ...schema.properties, [name!]: { type: 'string' } };
    schema.required = [...(schema.required ?? []), name!];
  }
  return schema;
}

/**
 * For a tool with path parameters, a check of the argument names alone, run before the path is
 * built: an unknown argument is then refused with BAD_REQUEST naming it (allowed: the route's fields
 * and the path parameters), as on REST, rather than hidden behind a missing path parameter.
 */
function namedArguments(path: string, inputSchema: Tool['inputSchema']): Check | undefined {
  if (!path.includes(':') || !inputSchema.properties) return undefined;
  const names = Object.keys(inputSchema.properties);
  return compileBody(Type.Object(Object.fromEntries(names.map((name) => [name, Type.Optional(Type.Unknown())])), { additionalProperties: false }));
}

/** The concrete path of a tool call: its path parameters taken out of the arguments. */
function toolPath(path: string, args: Record<string, unknown>): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = args[name];
    if (typeof value !== 'string' || value === '') throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `arguments must have ${name}, a non-empty string.`);
    delete args[name];
    return encodeURIComponent(value);
  });
}

/**
 * The OAuth scope a tool call needs (its REST twin's, on the call's channel for sending), or
 * undefined for a tool that needs none or does not exist (the tool server answers those).
 */
export function toolScopes(app: GatewayApp): (name: string, args: Readonly<Record<string, unknown>>) => string | undefined {
  return (name, args) => {
    const tool = TOOL_ROUTES.find((t) => t.name === name);
    const action = tool && app.route(tool.method, tool.path)?.scope;
    return action && scopeOf(action, args);
  };
}

/**
 * What every tool answers as `structuredContent`: its REST twin's JSON body, or the error body.
 * JSON Schema 2020-12, MCP's default dialect; no `$schema` keyword, which 2025-era clients
 * validating with a draft-07 Ajv could not resolve.
 */
const TOOL_OUTPUT: Tool['outputSchema'] = {
  type: 'object',
  description: "The JSON body the tool's REST twin answers, or the error body {error, code} with isError set.",
  additionalProperties: true,
};

const PingArguments = Type.Object({}, { additionalProperties: false });
const checkPingArguments = compileBody(PingArguments);
const PING: Tool = {
  name: 'comms_ping',
  description: 'Checks the connection: answers who this session acts as and the server time.',
  inputSchema: JSON.parse(JSON.stringify(PingArguments)) as Tool['inputSchema'],
  outputSchema: {
    type: 'object',
    properties: { ok: { type: 'boolean' }, principal: { type: 'string' }, agentId: { anyOf: [{ type: 'string' }, { type: 'null' }] }, time: { type: 'string', format: 'date-time' } },
  },
};

/** How one tool call runs: `signal` ends a wait early (the request was cancelled); `asTask` when it is answered as a task. */
export interface ToolCallOptions {
  readonly signal?: AbortSignal;
  readonly asTask?: boolean;
  /** The W3C trace context of the request (`_meta.traceparent`), handed to the route as its header. */
  readonly traceparent?: string;
}

/** The gateway's tools, for either protocol era: what they are (fixed order) and how one is called. */
export interface ToolCatalog {
  readonly tools: readonly Tool[];
  /** Runs a tool as `caller` (the rights of this request); bad arguments and failures are `isError` results. */
  call(name: string, args: Readonly<Record<string, unknown>>, caller: Principal, options?: ToolCallOptions): Promise<CallToolResult>;
}

/** A tool with its REST route, its definition and its compiled argument check: the same for every session of an app. */
interface RoutedTool {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly path: string;
  readonly arguments?: ToolArguments;
  readonly tool: Tool;
  readonly checkArguments: Check | undefined;
}

/** An app's tools as last built, and how many routes the app had then. */
interface BuiltTools {
  readonly routeCount: number;
  readonly routed: readonly RoutedTool[];
  readonly tools: readonly Tool[];
}

const builtTools = new WeakMap<GatewayApp, BuiltTools>();

/**
 * The app's tools, built once and shared by every session and request: a session used to build its
 * own (schemas copied, argument checks compiled), and ajv keeps every schema object it compiles, so
 * each session also left two compiled checks behind for good. Rebuilt only if routes were added since.
 */
function toolsOf(app: GatewayApp): BuiltTools {
  const built = builtTools.get(app);
  if (built && built.routeCount === app.routes.length) return built;
  const routed = TOOL_ROUTES.flatMap((t): RoutedTool[] => {
    const route = app.route(t.method, t.path);
    if (!route) return [];
    const own = t.arguments;
    const inputSchema = own ? (JSON.parse(JSON.stringify(own.schema)) as Tool['inputSchema']) : toolInput(route);
    const tool = { name: t.name, description: own?.description ?? route.summary, inputSchema, outputSchema: TOOL_OUTPUT } satisfies Tool;
    return [{ ...t, tool, checkArguments: own ? compileBody(own.schema) : namedArguments(t.path, inputSchema) }];
  });
  const fresh = { routeCount: app.routes.length, routed, tools: [...routed.map((t) => t.tool), PING] };
  builtTools.set(app, fresh);
  return fresh;
}

/**
 * The comms_* tools, each running its REST twin's handler through `GatewayApp.invoke` (same auth,
 * same schema, same code). A caller acting for an agent uses it when a call names none.
 */
export function toolCatalog(app: GatewayApp, principal: Principal, agentId: string | undefined): ToolCatalog {
  const { routed, tools } = toolsOf(app);
  return {
    tools,
    async call(name, given, caller, options = {}) {
      let args: Record<string, unknown> = { ...given };
      if (name === PING.name) {
        try {
          checkPingArguments(args, 'arguments');
        } catch (err) {
          return answer(errorResult(err).body, true);
        }
        return answer({ ok: true, principal: principal.kind, agentId: agentId ?? (principal.kind === 'client' ? principal.agentId : null), time: new Date().toISOString() });
      }
      const tool = routed.find((t) => t.name === name);
      if (!tool) return answer({ error: `No tool ${name}; list the tools to see what this server offers.`, code: 'NOT_FOUND' }, true);
      if (args.agentId === undefined && agentId !== undefined && tool.name !== 'comms_provision_channels') args.agentId = agentId;
      try {
        tool.checkArguments?.(args, 'arguments');
        if (tool.arguments) args = tool.arguments.toRoute(args, options.asTask === true);
        const headers: Record<string, string> = options.traceparent ? { traceparent: options.traceparent } : {};
        const result = await app.invoke(tool.method, toolPath(tool.path, args), caller, args, options.signal, headers);
        return answer(result.body, result.status >= 400);
      } catch (err) {
        return answer(errorResult(err).body, true);
      }
    },
  };
}

let ajvValidator: AjvJsonSchemaValidator | undefined;

/**
 * The JSON Schema validator of every session's SDK server. By default the SDK makes an ajv instance
 * with its formats for each server (19 KB of heap per session), used only to check elicitation
 * answers, which this server never asks for; one, made on first use, serves every session.
 */
const SHARED_VALIDATOR: jsonSchemaValidator = {
  getValidator: (schema) => (ajvValidator ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

/**
 * The MCP server of one 2025-era session: the catalog's tools, the `logging` capability for
 * inbound-message notifications and, with `inboxes`, the agents' inbox resources and their subscriptions.
 */
export function createToolServer(app: GatewayApp, principal: Principal, agentId: string | undefined, inboxes?: InboxSubscribers): Server {
  const capabilities = inboxes ? { tools: {}, logging: {}, resources: { subscribe: true } } : { tools: {}, logging: {} };
  const server = new Server({ name: 'switchboard', version: VERSION }, { capabilities, jsonSchemaValidator: SHARED_VALIDATOR });
  inboxes?.serve(server, app, principal, agentId);
  const catalog = toolCatalog(app, principal, agentId);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...catalog.tools] }));
  // The session's agent stays; the rights are the caller's of this request (an access token's scopes may change).
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
    catalog.call(request.params.name, request.params.arguments ?? {}, callerOf(extra.authInfo) ?? principal, {
      signal: extra.signal,
      ...withTrace(traceparentOf(request.params._meta?.traceparent)),
    }),
  );
  return server;
}

/** A tool's answer: the body as `structuredContent` (an object) and, for older clients, as JSON text. */
function answer(body: unknown, isError = false): CallToolResult {
  const structured = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : { result: body };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: structured, ...(isError ? { isError: true } : {}) };
}
