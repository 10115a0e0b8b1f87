import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AuthLockout, createLogger, type Principal } from '@switchboard/runtime';
import { GatewayApp, type GatewayAppOptions } from '../../src/http/app.js';
import { attachMcp, type McpOptions } from '../../src/mcp/attach.js';
import type { McpSessions } from '../../src/mcp/mcp-sessions.js';
import { GatewayMetrics } from '../../src/metrics.js';
import { testAdapter } from '../adapter.js';

/** Test tokens and whom they stand for. */
export const TOKENS = {
  orchestrator: 'orch-token',
  team: 'team-token',
  alice: 'alice-token',
  bob: 'bob-token',
} as const;

const PRINCIPALS = new Map<string, Principal>([
  [TOKENS.orchestrator, { kind: 'orchestrator' }],
  [TOKENS.team, { kind: 'team' }],
  [TOKENS.alice, { kind: 'client', agentId: 'alice' }],
  [TOKENS.bob, { kind: 'client', agentId: 'bob' }],
]);

/** A tiny MCP server: `logging`, and one tool `comms_ping` that reports who called. */
export function pingServer(principal: Principal, agentId: string | undefined): McpServer {
  const server = new McpServer({ name: 'switchboard-test', version: '0.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('comms_ping', { description: 'Checks the connection and reports the caller.' }, async () => ({
    content: [{ type: 'text', text: JSON.stringify({ ok: true, principal: principal.kind, agentId: agentId ?? null }) }],
  }));
  return server;
}

/** The gateway's real HTTP adapter (uWS, or node:http under SWITCHBOARD_HTTP_ADAPTER=node) and REST pipeline with the MCP routes attached, on a loopback port. */
export interface McpHarness {
  readonly url: string;
  readonly port: number;
  readonly sessions: McpSessions;
  readonly lockout: AuthLockout;
  close(): Promise<void>;
}

export async function startMcpHarness(options: Partial<McpOptions> & { lockAfter?: number } = {}): Promise<McpHarness> {
  const logger = createLogger({ level: 'silent', pretty: false });
  const lockout = new AuthLockout({ attempts: options.lockAfter ?? 1000, windowMs: 60_000, lockMs: 60_000 });
  // The MCP routes never reach the REST pipeline's ports; unmatched paths only need metrics and a logger.
  const app = new GatewayApp({ ports: {} as GatewayAppOptions['ports'], metrics: new GatewayMetrics(), logger, bodyLimits: { api: 1 << 20, webhook: 5 << 20 } });
  let sessions: McpSessions | undefined;
  const listener = await (await testAdapter()).listen(app, {
    host: '127.0.0.1',
    port: 0,
    logger,
    before: (routes) => {
      sessions = attachMcp(routes, {
        authenticate: async (token) => PRINCIPALS.get(token),
        lockout,
        createServer: pingServer,
        logger,
        ...options,
      });
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    sessions: sessions!,
    lockout,
    async close() {
      await sessions!.closeAll();
      await listener.close(100);
    },
  };
}

/** An official MCP client over HTTP+SSE; it sends `bearer` (default: the query's token) on every request. */
export async function connectSse(
  url: string,
  query: Record<string, string>,
  options: { bearer?: string; capabilities?: ConstructorParameters<typeof Client>[1] } = {},
): Promise<{ client: Client; transport: SSEClientTransport }> {
  const target = new URL('/sse', url);
  for (const [name, value] of Object.entries(query)) target.searchParams.set(name, value);
  const bearer = options.bearer ?? query.token;
  const transport = new SSEClientTransport(target, bearer ? { requestInit: { headers: { authorization: `Bearer ${bearer}` } } } : {});
  const client = new Client({ name: 'test-client', version: '0.0.0' }, options.capabilities);
  await client.connect(transport);
  return { client, transport };
}

/** An official MCP client over Streamable HTTP. */
export async function connectStreamable(
  url: string,
  token: string,
  options: { agentId?: string; capabilities?: ConstructorParameters<typeof Client>[1] } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const target = new URL('/mcp', url);
  if (options.agentId) target.searchParams.set('agentId', options.agentId);
  const transport = new StreamableHTTPClientTransport(target, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 50, maxReconnectionDelay: 50, reconnectionDelayGrowFactor: 1 },
  });
  const client = new Client({ name: 'test-client', version: '0.0.0' }, options.capabilities);
  await client.connect(transport);
  return { client, transport };
}

/** The JSON a `comms_ping` call returned. */
export function pingResult(result: unknown): unknown {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return JSON.parse(content[0]!.text);
}

/**
 * One HTTP request through node:http, which, unlike fetch, sends the Host header it is given (for
 * DNS-rebinding tests). Resolves with the status and the body parsed as JSON when it is JSON.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (res) => {
      const type = String(res.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) {
        // An open stream: the status is the answer; the stream itself is not read.
        res.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body: undefined });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: type.includes('json') && text ? JSON.parse(text) : text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
