import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { ErrorCodes } from '@switchboard/sdk';
import type { Principal } from '@switchboard/runtime';
import { fail } from '../http/errors.js';
import type { Exchange } from '../http/exchange.js';
import { sendFetchResponse } from './fetch-bridge.js';
import { refusedSubscriptions } from './inbox-resource.js';
import { SECURITY_HEADERS, callerInfo, type McpRouteContext } from './mcp-http.js';

/** A 2026-07-28 `subscriptions/listen` request (a single JSON-RPC request with that method). */
export function isListenRequest(body: unknown): body is { id: string | number; method: 'subscriptions/listen'; params?: unknown } {
  const message = body as { method?: unknown; id?: unknown } | null;
  return typeof message === 'object' && message !== null && message.method === 'subscriptions/listen' && message.id !== undefined;
}

/**
 * Serves a `subscriptions/listen` request with the v2 SDK's listen router, after what the router does
 * not check: every `resourceSubscriptions` URI must be an inbox the caller may read (else JSON-RPC
 * -32602, in-band like the router's own refusals), and the stream counts against the principal's cap
 * of held sessions and streams (McpSessions), which may end it early (eviction) and ends it on shutdown.
 */
export async function serveListen(
  listen: McpHttpHandler,
  exchange: Exchange,
  request: Request,
  principal: Principal,
  agentId: string | undefined,
  body: { id: string | number; params?: unknown },
  context: McpRouteContext,
): Promise<void> {
  const filter = (body.params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications;
  const uris = filter?.resourceSubscriptions;
  const refusal = Array.isArray(uris) ? refusedSubscriptions(principal, uris) : undefined;
  if (refusal) {
    const answer = { jsonrpc: '2.0', id: body.id, error: { code: -32602, message: refusal } };
    exchange.answer(200, { ...SECURITY_HEADERS, 'content-type': 'application/json' }, JSON.stringify(answer));
    return;
  }
  if (!context.sessions.accepting) fail(ErrorCodes.UNAVAILABLE, 'The server is shutting down; listen again shortly.');
  const ending = new AbortController();
  const release = context.sessions.holdStream(principal, agentId, () => ending.abort());
  try {
    const response = await listen.fetch(new Request(request, { signal: ending.signal }), { authInfo: callerInfo(principal, agentId), parsedBody: body });
    await sendFetchResponse(exchange, response, SECURITY_HEADERS);
  } finally {
    release();
  }
}
