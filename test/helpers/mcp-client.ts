import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '@switchboard/runtime/testing';

/** An official MCP client connected to the gateway, with the log notifications it received. */
export interface ConnectedClient {
  readonly client: Client;
  readonly notifications: LoggingMessageNotification['params'][];
  /** Resolves with the first notification from `logger` matching `match`. */
  next(logger: string, match?: (data: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Parses a tool result's JSON text. */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** Connects over HTTP+SSE (`sse`) or Streamable HTTP (`streamable`) with a token and an optional agent. */
export async function connectMcp(baseUrl: string, kind: 'sse' | 'streamable', token: string, agentId?: string): Promise<ConnectedClient> {
  const client = new Client({ name: 'switchboard-test-agent', version: '1.0.0' });
  const notifications: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    notifications.push(n.params);
  });
  const query = new URLSearchParams({ ...(kind === 'sse' ? { token } : {}), ...(agentId ? { agentId } : {}) });
  const transport =
    kind === 'sse'
      ? new SSEClientTransport(new URL(`${baseUrl}/sse?${query}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
      : new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp?${query}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return {
    client,
    notifications,
    async next(logger, match = () => true, timeoutMs) {
      const found = await eventually(() => notifications.find((n) => n.logger === logger && match(n.data as Record<string, unknown>)), {
        timeoutMs,
        message: () => `a ${logger} notification that matches; got ${JSON.stringify(notifications)}`,
      });
      return found.data as Record<string, unknown>;
    },
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
      return { isError: result.isError === true, body: JSON.parse(result.content[0]!.text) as Record<string, unknown> };
    },
    close: () => client.close(),
  };
}

/**
 * An MCP client that offers sampling, not yet connected: it answers each turn with
 * `Sampled answer to: <what the caller said last>` and records what it was asked.
 */
export function samplingAgent(): { client: Client; asked: string[] } {
  const client = new Client({ name: 'voice-agent', version: '1.0.0' }, { capabilities: { sampling: {} } });
  const asked: string[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const last = request.params.messages.at(-1)!.content as { type: string; text: string };
    asked.push(last.text);
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `Sampled answer to: ${last.text}` } };
  });
  return { client, asked };
}
