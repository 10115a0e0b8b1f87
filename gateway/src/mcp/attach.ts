import { createMcpHandler, type CreateMcpHandlerOptions, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Logger } from '@switchboard/runtime';
import type { SocketRoutes } from '../http/socket-routes.js';
import type { ResourceServer } from '../oauth/resource-server.js';
import { InboxEventBus } from './inbox-resource.js';
import { McpAuth, type Authenticate, type Lockout, type ToolScope } from './mcp-auth.js';
import { callerOf, type CreateMcpServer, type CreateModernMcpServer, type ObserveRequest } from './mcp-http.js';
import { McpSessions } from './mcp-sessions.js';
import { ServerNames } from './server-names.js';
import { attachSseRoutes } from './sse-routes.js';
import { attachStreamableRoutes } from './streamable-routes.js';

/** Settings of the MCP transports. */
export interface McpOptions {
  /** Resolves a token to its principal (the runtime's `tokens.authenticate`). */
  readonly authenticate: Authenticate;
  /** Counts failed authentications per address (the runtime's `lockout`). */
  readonly lockout: Lockout;
  /** OAuth access tokens beside the static tokens, when configured. */
  readonly oauth?: ResourceServer;
  /** The OAuth scope a tool call needs (see `toolScopes`), checked before the SDK runs it. */
  readonly toolScope?: ToolScope;
  /** Makes the SDK server, with the gateway's tools, for each new session. */
  readonly createServer: CreateMcpServer;
  /**
   * Makes the v2 SDK server, with the same tools, for each stateless 2026-07-28 request at `/mcp`.
   * Without it only the 2025-era revisions are served.
   */
  readonly createModernServer?: CreateModernMcpServer;
  /**
   * Hears that an agent's inbox has a new entry, wherever it was appended (the runtime's inbox hints);
   * with it and `createModernServer`, `subscriptions/listen` streams hear `notifications/resources/updated`.
   */
  readonly followInboxes?: (listener: (agentId: string) => void) => () => void;
  readonly logger: Logger;
  /** Interval of SSE keep-alive comments; 0 turns them off. Default 15 000. */
  readonly keepAliveMs?: number;
  /** Bytes a stream may hold for a client that is not reading before it is disconnected. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
  /** Largest POSTed body. Default 1 MiB. */
  readonly bodyLimit?: number;
  /** Sessions one principal may hold; a new one beyond it evicts the longest idle. Default 64. */
  readonly maxSessionsPerPrincipal?: number;
  /**
   * A session with no request in flight and no listener (initialized, with its stream open) is closed
   * after this long without a request; 0 never. Default 5 min.
   */
  readonly sessionIdleMs?: number;
  /** Request metrics (the gateway's `metrics.observeRequest`). */
  readonly observe?: ObserveRequest;
  /** The names Host and Origin must carry (DNS-rebinding protection). Default: loopback names only. */
  readonly serverNames?: ServerNames;
}

export const MCP_DEFAULTS = {
  keepAliveMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
  bodyLimit: 1024 * 1024,
  maxSessionsPerPrincipal: 64,
  sessionIdleMs: 5 * 60_000,
} as const;

/**
 * Attaches the MCP transports to the HTTP adapter, before the gateway's catch-all route:
 * `GET /sse` + `POST /messages` (HTTP+SSE, deprecated) and `POST|GET|DELETE /mcp` (Streamable
 * HTTP: 2025-era sessions and stateless 2026-07-28 requests). Returns the session registry the rest of the gateway delivers through.
 */
export function attachMcp(routes: SocketRoutes, options: McpOptions): McpSessions {
  const sessions = new McpSessions(options.logger, {
    maxPerPrincipal: options.maxSessionsPerPrincipal ?? MCP_DEFAULTS.maxSessionsPerPrincipal,
    idleMs: options.sessionIdleMs ?? MCP_DEFAULTS.sessionIdleMs,
  });
  const context = {
    auth: new McpAuth(options.authenticate, options.lockout, options.oauth, options.toolScope),
    sessions,
    createServer: options.createServer,
    modern: options.createModernServer && modernHandler(options.createModernServer, options),
    listen: options.createModernServer && options.followInboxes && listenHandler(options.createModernServer, options.followInboxes, options, sessions),
    logger: options.logger,
    keepAliveMs: options.keepAliveMs ?? MCP_DEFAULTS.keepAliveMs,
    maxBufferedBytes: options.maxBufferedBytes ?? MCP_DEFAULTS.maxBufferedBytes,
    bodyLimit: options.bodyLimit ?? MCP_DEFAULTS.bodyLimit,
    observe: options.observe,
    names: options.serverNames ?? new ServerNames(),
  };
  attachSseRoutes(routes, context);
  attachStreamableRoutes(routes, context);
  return sessions;
}

/**
 * The v2 SDK's handler for stateless 2026-07-28 requests. It serves nothing of the 2025 era
 * (`legacy: 'reject'`): the routes send those requests to the sessions. The gateway has
 * authenticated the caller and passes it, with the agent it acts for, as `authInfo`.
 */
function modernHandler(create: CreateModernMcpServer, options: McpOptions, more: Partial<CreateMcpHandlerOptions> = {}): McpHttpHandler {
  return createMcpHandler(
    ({ authInfo }) => {
      const principal = callerOf(authInfo);
      if (!principal) throw new Error('A stateless MCP request reached the SDK without its caller.');
      return create(principal, authInfo?.extra?.agentId as string | undefined);
    },
    {
      legacy: 'reject',
      keepAliveMs: options.keepAliveMs ?? MCP_DEFAULTS.keepAliveMs,
      maxRequestBodySize: options.bodyLimit ?? MCP_DEFAULTS.bodyLimit,
      onerror: (err) => options.logger.debug({ err }, 'mcp stateless request refused or failed'),
      ...more,
    },
  );
}

/**
 * A handler of its own for `subscriptions/listen`, over the inbox hints, so that shutdown can end its
 * streams gracefully (the SDK's close sends each its final result) without aborting the other stateless
 * requests still draining. Its streams count against the principals' caps, not the SDK's own limit.
 */
function listenHandler(create: CreateModernMcpServer, follow: NonNullable<McpOptions['followInboxes']>, options: McpOptions, sessions: McpSessions): McpHttpHandler {
  const handler = modernHandler(create, options, { bus: new InboxEventBus(follow), maxSubscriptions: Number.MAX_SAFE_INTEGER });
  sessions.onClosing(() => handler.close());
  return handler;
}
