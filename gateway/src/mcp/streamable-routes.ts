import { randomUUID } from 'node:crypto';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { ErrorCodes } from '@switchboard/sdk';
import type { Principal } from '@switchboard/runtime';
import { fail } from '../http/errors.js';
import { sendFetchResponse, toFetchRequest } from './fetch-bridge.js';
import { isListenRequest, serveListen } from './listen.js';
import { McpAuth } from './mcp-auth.js';
import {
  SECURITY_HEADERS,
  answerError,
  callerInfo,
  answerMethodNotAllowed,
  jsonBody,
  noteMessage,
  serverOf,
  startExchange,
  startReadingBody,
  type McpRouteContext,
} from './mcp-http.js';
import type { McpSession } from './mcp-session.js';
import { StreamableSessionTransport } from './streamable-transport.js';
import type { Exchange } from '../http/exchange.js';
import type { SocketRoutes } from '../http/socket-routes.js';

/**
 * MCP's Streamable HTTP transport at `/mcp` (bearer token). Two eras share the path: 2025-era
 * clients start a session (initialize, `Mcp-Session-Id`, POST, GET, DELETE), where the gateway
 * finds the session and the SDK's Web-standard transport does the rest; 2026-07-28 clients send
 * stateless POSTs carrying their protocol version in `_meta`, which the v2 SDK's handler answers.
 */
export function attachStreamableRoutes(routes: SocketRoutes, context: McpRouteContext): void {
  const buffering = { maxBufferedBytes: context.maxBufferedBytes };
  const handler = (raw: Exchange) => {
    const exchange = startExchange(raw, '/mcp', context);
    const reading = exchange.method === 'POST' ? startReadingBody(exchange, context.bodyLimit) : Promise.resolve(Buffer.alloc(0));
    let bodyRead = exchange.method !== 'POST';
    reading.then((body) => (bodyRead = body !== undefined)).catch(() => undefined);
    serve(exchange, reading, context).catch((err) => answerError(exchange, err, context.logger, !bodyRead));
  };
  routes.route('POST', '/mcp', handler, buffering);
  routes.route('GET', '/mcp', handler, buffering);
  routes.route('DELETE', '/mcp', handler, buffering);
  routes.route('*', '/mcp', (raw) => answerMethodNotAllowed(startExchange(raw, '/mcp', context), 'GET, POST, DELETE'), buffering);
}

async function serve(exchange: Exchange, reading: Promise<Buffer | undefined>, context: McpRouteContext): Promise<void> {
  context.names.check(exchange.headers);
  context.auth.refuseQueryToken(exchange.queryString, '/mcp');
  const principal = await context.auth.principal(
    McpAuth.bearer(exchange.headers),
    exchange.remoteAddress,
    'A bearer token is required: send Authorization: Bearer <token>.',
  );
  const body = exchange.method === 'POST' ? await jsonBody(exchange, reading, context.bodyLimit) : undefined;
  if (exchange.ended) return;
  context.auth.checkToolScopes(principal, body, '/mcp');
  noteMessage(exchange, body);
  const sessionId = exchange.headers['mcp-session-id'];
  if (sessionId === undefined && exchange.method === 'POST' && context.modern && isJsonRpcMessage(body)) {
    // The gateway has checked the credential; the SDK and the tools see the request without it.
    const request = toFetchRequest(exchange, undefined, ['authorization']);
    // The SDK's own classification: a request claiming a revision in `_meta` (or the modern header) is its to answer or refuse.
    if (!(await isLegacyRequest(request, body))) {
      const agentId = McpAuth.agentFor(principal, exchange.query.get('agentId'));
      if (context.listen && isListenRequest(body)) return serveListen(context.listen, exchange, request, principal, agentId, body, context);
      const response = await context.modern.fetch(request, { authInfo: callerInfo(principal, agentId), parsedBody: body });
      await sendFetchResponse(exchange, response, SECURITY_HEADERS);
      return;
    }
  }
  const session = sessionId === undefined ? await startSession(exchange, principal, body, context) : existingSession(sessionId, principal, context);
  const transport = session.transport as StreamableSessionTransport;
  // Until its answer (or its GET stream) ends, a request keeps the session from being idle.
  const answered = session.request();
  try {
    // The gateway has checked the credential; tool handlers see the request without it.
    const request = toFetchRequest(exchange, undefined, ['authorization']);
    // Tools act as this request's caller, whose access token may carry other scopes than the session's first.
    const response = await transport.handleRequest(request, { authInfo: callerInfo(principal), ...(body === undefined ? {} : { parsedBody: body }) });
    if (sessionId === undefined && transport.sessionId !== session.id) {
      // The SDK refused the initialize request: nothing was started, so nothing is kept.
      void session.close();
    }
    const isStandaloneStream = exchange.method === 'GET' && response.status === 200;
    await sendFetchResponse(exchange, response, SECURITY_HEADERS, isStandaloneStream ? () => transport.attachStandaloneStream(exchange) : undefined);
  } finally {
    answered();
  }
}

/**
 * A single JSON-RPC request or notification, the only body the 2026-07-28 revision sends. Anything
 * else (batches, other JSON) keeps the contract's error answers of the session path.
 */
function isJsonRpcMessage(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as { jsonrpc?: unknown; method?: unknown };
  return message.jsonrpc === '2.0' && typeof message.method === 'string';
}

function existingSession(sessionId: string, principal: Principal, context: McpRouteContext): McpSession {
  const session = context.sessions.get(sessionId);
  if (!session || session.closed || !(session.transport instanceof StreamableSessionTransport)) {
    fail(ErrorCodes.NOT_FOUND, 'No MCP session has this Mcp-Session-Id; it may have ended, expired or been evicted. Start a new one with an initialize request.');
  }
  if (!McpAuth.same(principal, session.principal)) fail(ErrorCodes.FORBIDDEN, 'This MCP session belongs to another principal.');
  return session;
}

async function startSession(
  exchange: Exchange,
  principal: Principal,
  body: unknown,
  context: McpRouteContext,
): Promise<McpSession> {
  const initializing = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
  if (exchange.method !== 'POST' || !initializing) {
    fail(ErrorCodes.BAD_REQUEST, 'The Mcp-Session-Id header is required; only an initialize request starts a session.');
  }
  if (!context.sessions.accepting) fail(ErrorCodes.UNAVAILABLE, 'The server is shutting down; reconnect shortly.');
  const agentId = McpAuth.agentFor(principal, exchange.query.get('agentId'));
  const id = randomUUID();
  const transport = new StreamableSessionTransport({
    sessionId: id,
    keepAliveMs: context.keepAliveMs,
    bodyLimit: context.bodyLimit,
  });
  const server = serverOf(context.createServer(principal, agentId));
  const session = await context.sessions.open({ id, kind: 'streamable-http', principal, agentId, server, transport });
  context.logger.info({ sessionId: id, agentId, principal: principal.kind }, 'mcp streamable session opened');
  return session;
}
