export { attachMcp, MCP_DEFAULTS } from './attach.js';
export type { McpOptions } from './attach.js';
export { McpSessions } from './mcp-sessions.js';
export type { McpSessionEvent, McpSessionListener } from './mcp-sessions.js';
export { McpSession } from './mcp-session.js';
export type { McpTransportKind } from './mcp-session.js';
export type { CreateMcpServer, ObserveRequest } from './mcp-http.js';
export type { Authenticate, Lockout } from './mcp-auth.js';
export { StreamClosedError } from './uws-exchange.js';
