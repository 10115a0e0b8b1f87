import type { Logger } from '@switchboard/runtime';
import type { SocketRoutes } from '../http/socket-routes.js';
import { McpAuth, type Authenticate, type Lockout } from './mcp-auth.js';
import type { CreateMcpServer, ObserveRequest } from './mcp-http.js';
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
  /** Makes the SDK server, with the gateway's tools, for each new session. */
  readonly createServer: CreateMcpServer;
  readonly logger: Logger;
  /** Interval of SSE keep-alive comments; 0 turns them off. Default 15 000. */
  readonly keepAliveMs?: number;
  /** Bytes a stream may hold for a client that is not reading before it is disconnected. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
  /** Largest POSTed body. Default 1 MiB. */
  readonly bodyLimit?: number;
  /** A Streamable HTTP session with no request and no GET stream for this long is closed; 0 never. Default 30 min. */
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
  sessionIdleMs: 30 * 60_000,
} as const;

/**
 * Attaches the MCP transports to the HTTP adapter, before the gateway's catch-all route:
 * `GET /sse` + `POST /messages` (HTTP+SSE) and `POST|GET|DELETE /mcp` (Streamable HTTP).
 * Returns the session registry the rest of the gateway delivers through.
 */
export function attachMcp(routes: SocketRoutes, options: McpOptions): McpSessions {
  const sessions = new McpSessions(options.logger);
  const context = {
    auth: new McpAuth(options.authenticate, options.lockout),
    sessions,
    createServer: options.createServer,
    logger: options.logger,
    keepAliveMs: options.keepAliveMs ?? MCP_DEFAULTS.keepAliveMs,
    maxBufferedBytes: options.maxBufferedBytes ?? MCP_DEFAULTS.maxBufferedBytes,
    bodyLimit: options.bodyLimit ?? MCP_DEFAULTS.bodyLimit,
    sessionIdleMs: options.sessionIdleMs ?? MCP_DEFAULTS.sessionIdleMs,
    observe: options.observe,
    names: options.serverNames ?? new ServerNames(),
  };
  attachSseRoutes(routes, context);
  attachStreamableRoutes(routes, context);
  return sessions;
}
