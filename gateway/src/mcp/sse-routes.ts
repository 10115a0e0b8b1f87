import { randomUUID } from 'node:crypto';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import { McpAuth } from './mcp-auth.js';
import {
  SECURITY_HEADERS,
  answerError,
  callerInfo,
  answerMethodNotAllowed,
  jsonBody,
  serverOf,
  startExchange,
  startReadingBody,
  visibleHeaders,
  type McpRouteContext,
} from './mcp-http.js';
import { SseServerTransport } from './sse-transport.js';
import type { Exchange } from '../http/exchange.js';
import type { SocketRoutes } from '../http/socket-routes.js';

/** Most JSON-RPC messages in one POSTed batch, as the SDK allows. */
const MAX_BATCH = 100;

/** MCP's HTTP+SSE transport: `GET /sse?token=…&agentId=…` opens a session, `POST /messages?sessionId=…` feeds it. */
export function attachSseRoutes(routes: SocketRoutes, context: McpRouteContext): void {
  const buffering = { maxBufferedBytes: context.maxBufferedBytes };
  routes.route('GET', '/sse', (raw) => {
    const exchange = startExchange(raw, '/sse', context);
    openSession(exchange, context).catch((err) => answerError(exchange, err, context.logger));
  }, buffering);
  routes.route('*', '/sse', (raw) => answerMethodNotAllowed(startExchange(raw, '/sse', context), 'GET'), buffering);

  routes.route('POST', '/messages', (raw) => {
    const exchange = startExchange(raw, '/messages', context);
    const reading = startReadingBody(exchange, context.bodyLimit);
    let bodyRead = false;
    reading.then((body) => (bodyRead = body !== undefined)).catch(() => undefined);
    postMessages(exchange, reading, context).catch((err) => answerError(exchange, err, context.logger, !bodyRead));
  }, buffering);
  routes.route('*', '/messages', (raw) => answerMethodNotAllowed(startExchange(raw, '/messages', context), 'POST'), buffering);
}

async function openSession(exchange: Exchange, context: McpRouteContext): Promise<void> {
  context.names.check(exchange.headers);
  if (!context.sessions.accepting) fail(ErrorCodes.UNAVAILABLE, 'The server is shutting down; reconnect shortly.');
  const token = McpAuth.bearer(exchange.headers) ?? exchange.query.get('token') ?? undefined;
  const principal = await context.auth.principal(token, exchange.remoteAddress, 'A token is required: GET /sse?token=<token>.');
  const agentId = McpAuth.agentFor(principal, exchange.query.get('agentId'));
  if (exchange.ended) return;
  const id = randomUUID();
  const transport = new SseServerTransport(exchange, {
    sessionId: id,
    endpoint: '/messages',
    keepAliveMs: context.keepAliveMs,
    headers: SECURITY_HEADERS,
  });
  const server = serverOf(context.createServer(principal, agentId));
  await context.sessions.open({ id, kind: 'sse', principal, agentId, server, transport });
  context.logger.info({ sessionId: id, agentId, principal: principal.kind }, 'mcp sse session opened');
}

async function postMessages(exchange: Exchange, reading: Promise<Buffer | undefined>, context: McpRouteContext): Promise<void> {
  context.names.check(exchange.headers);
  const sessionId = exchange.query.get('sessionId');
  if (!sessionId) fail(ErrorCodes.BAD_REQUEST, 'sessionId is required: POST to the URL of the endpoint event, /messages?sessionId=<id>.');
  // The caller's own credential, as MCP clients send it on every request: a session id is a routing
  // key, never a credential, so it cannot stand in for the session's principal.
  const caller = await context.auth.principal(
    McpAuth.bearer(exchange.headers),
    exchange.remoteAddress,
    'A bearer token is required: send Authorization: Bearer <token>, the token the session was opened with.',
  );
  const session = context.sessions.get(sessionId);
  if (!session || session.closed || !(session.transport instanceof SseServerTransport)) {
    fail(ErrorCodes.NOT_FOUND, 'No open MCP session has this sessionId; it may have closed, expired or been evicted. Open a new one with GET /sse.');
  }
  if (!McpAuth.same(caller, session.principal)) fail(ErrorCodes.FORBIDDEN, 'This session belongs to another principal.');
  const messages = parseMessages(await jsonBody(exchange, reading, context.bodyLimit));
  context.auth.checkToolScopes(caller, messages, '/mcp');
  const url = new URL(`${exchange.path}?${exchange.queryString}`, 'http://localhost');
  const extra = { requestInfo: { headers: visibleHeaders(exchange.headers), url }, authInfo: callerInfo(caller) };
  const answered = session.request();
  try {
    for (const message of messages) session.transport.receive(message, extra);
  } finally {
    answered();
  }
  exchange.answer(202, SECURITY_HEADERS);
}

function parseMessages(body: unknown): JSONRPCMessage[] {
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0 || list.length > MAX_BATCH) fail(ErrorCodes.BAD_REQUEST, `Send one JSON-RPC message, or a batch of 1 to ${MAX_BATCH}.`);
  return list.map((item) => {
    const parsed = JSONRPCMessageSchema.safeParse(item);
    if (!parsed.success) fail(ErrorCodes.BAD_REQUEST, 'The body is not a JSON-RPC 2.0 message.');
    return parsed.data;
  });
}
