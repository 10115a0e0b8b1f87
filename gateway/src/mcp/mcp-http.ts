import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpHttpHandler, McpServer as ModernMcpServer, Server as ModernServer } from '@modelcontextprotocol/server';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Logger, Principal } from '@switchboard/runtime';
import { errorResult, fail } from '../http/errors.js';
import { traceparentOf } from '../http/trace.js';
import type { McpAuth } from './mcp-auth.js';
import type { McpSessions } from './mcp-sessions.js';
import type { ServerNames } from './server-names.js';
import type { Exchange } from '../http/exchange.js';

/** Makes the SDK server for one new session; the gateway registers its tools on it. */
export type CreateMcpServer = (principal: Principal, agentId: string | undefined) => McpServer | Server;

/** Makes the v2 SDK server answering one stateless 2026-07-28 request, as its caller. */
export type CreateModernMcpServer = (principal: Principal, agentId: string | undefined) => ModernMcpServer | ModernServer;

/** Records one answered request: route pattern, method, status, seconds to the response head. */
export type ObserveRequest = (route: string, method: string, status: number, seconds: number) => void;

/** What the MCP routes share. */
export interface McpRouteContext {
  readonly auth: McpAuth;
  readonly sessions: McpSessions;
  readonly createServer: CreateMcpServer;
  /** Answers stateless 2026-07-28 requests at `/mcp` (the v2 SDK's handler), when the revision is served. */
  readonly modern: McpHttpHandler | undefined;
  /** Answers 2026-07-28 `subscriptions/listen` (the v2 SDK's listen router over the inbox hints), when served. */
  readonly listen: McpHttpHandler | undefined;
  readonly logger: Logger;
  readonly keepAliveMs: number;
  readonly maxBufferedBytes: number;
  readonly bodyLimit: number;
  readonly observe: ObserveRequest | undefined;
  /** Host and Origin must name this server. */
  readonly names: ServerNames;
}

/** The headers the REST pipeline adds to every answer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

const JSON_TYPE = 'application/json; charset=utf-8';

/** What a request's log lines carry about its MCP message: its method and the caller's W3C trace context. */
interface MessageNote {
  readonly mcpMethod?: string;
  readonly traceparent?: string;
}

const notes = new WeakMap<Exchange, MessageNote>();


/**
 * Notes the JSON-RPC method of a request body and the `traceparent` of its `_meta` (2026-07-28
 * clients send it there), so the request's log lines carry them.
 */
export function noteMessage(exchange: Exchange, body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const { method, params } = body as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
  const traceparent = traceparentOf(params?._meta?.traceparent);
  notes.set(exchange, {
    ...(typeof method === 'string' ? { mcpMethod: method.slice(0, 100) } : {}),
    ...(traceparent ? { traceparent } : {}),
  });
}

/** Adds request metrics and the request log line to an MCP route's exchange. Call inside the route handler. */
export function startExchange(exchange: Exchange, route: string, context: McpRouteContext): Exchange {
  const started = process.hrtime.bigint();
  exchange.onHead = (status) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    context.observe?.(route, exchange.method, status, seconds);
    context.logger.info({ method: exchange.method, route, status, ms: Math.round(seconds * 1e4) / 10, ...notes.get(exchange) }, 'request');
  };
  return exchange;
}

/** The contract's error answer (`{error, code}`, Retry-After where due). Closes the connection when the body went unread. */
export function answerError(exchange: Exchange, err: unknown, logger: Logger, closeConnection = false): void {
  const result = errorResult(err);
  if (result.status >= 500) logger.error({ err, path: exchange.path, ...notes.get(exchange) }, 'mcp request failed');
  exchange.answer(result.status, { ...SECURITY_HEADERS, 'content-type': JSON_TYPE, ...result.headers }, JSON.stringify(result.body), closeConnection);
}

/** Answers 405 for a method the route does not serve. */
export function answerMethodNotAllowed(exchange: Exchange, allow: string): void {
  const result = errorResult(new SwitchboardError(ErrorCodes.METHOD_NOT_ALLOWED, `${exchange.method} is not allowed here; use ${allow}.`));
  exchange.answer(result.status, { ...SECURITY_HEADERS, allow, 'content-type': JSON_TYPE }, JSON.stringify(result.body));
}

/**
 * Starts reading a JSON request body within `limit` (call inside the route handler). A declared
 * Content-Length over the limit is refused without reading. Resolves undefined when too large.
 */
export function startReadingBody(exchange: Exchange, limit: number): Promise<Buffer | undefined> {
  const declared = Number(exchange.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(undefined);
  return exchange.readBody(limit);
}

/** The parsed JSON body, or a coded error: 415 when not JSON, 413 over the limit, 400 when malformed. */
export async function jsonBody(exchange: Exchange, reading: Promise<Buffer | undefined>, limit: number): Promise<unknown> {
  const type = exchange.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) fail(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Send the body as application/json.');
  const raw = await reading;
  if (raw === undefined) fail(ErrorCodes.PAYLOAD_TOO_LARGE, `The body is larger than the ${limit}-byte limit for this route.`);
  if (raw.length === 0) fail(ErrorCodes.BAD_REQUEST, 'A JSON-RPC message is required.');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    fail(ErrorCodes.BAD_REQUEST, 'The body is not valid JSON.');
  }
}

/** The low-level SDK server behind what createServer returned. */
export function serverOf(created: McpServer | Server): Server {
  return 'server' in created ? created.server : created;
}

/**
 * The caller of one request as the SDK hands it to tool handlers (`extra.authInfo`), without its
 * credential; with the agent it acts for on a stateless request.
 */
export function callerInfo(principal: Principal, agentId?: string): AuthInfo {
  return {
    token: '',
    clientId: '',
    scopes: principal.kind === 'client' ? [...(principal.scopes ?? [])] : [],
    extra: { principal, ...(agentId === undefined ? {} : { agentId }) },
  };
}

/** The caller `callerInfo` recorded, if any. */
export function callerOf(authInfo: AuthInfo | undefined): Principal | undefined {
  return authInfo?.extra?.principal as Principal | undefined;
}

/** Request headers as a tool handler may see them: without the credential. */
export function visibleHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const { authorization: _credential, ...rest } = headers;
  return rest;
}
