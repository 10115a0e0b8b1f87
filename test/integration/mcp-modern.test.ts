import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { capturingLogger } from '../helpers/capturing-logger.js';

const REVISION = '2026-07-28';
const CUSTOMER = '+14155550123';
/** The tools in the order the server lists them: the same on every request, whichever gateway answers. */
const TOOL_ORDER = [
  'comms_send_message',
  'comms_make_call',
  'comms_call_on_behalf',
  'comms_send_voice_message',
  'comms_transfer_call',
  'comms_set_callback_url',
  'comms_get_waiting_messages',
  'comms_get_channel_status',
  'comms_get_usage',
  'comms_get_billing',
  'comms_provision_channels',
  'comms_deprovision_channels',
  'comms_get_call',
  'comms_inbox_read',
  'comms_inbox_ack',
  'comms_list_conversations',
  'comms_get_conversation',
  'comms_link_contacts',
  'comms_record_consent',
  'comms_revoke_consent',
  'comms_check_consent',
  'comms_do_not_contact',
  'comms_wait_for_reply',
  'comms_ping',
];

/** The per-request envelope a 2026-07-28 client puts in `_meta`. */
const META = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface RpcAnswer {
  readonly status: number;
  readonly body: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
}


describe(`MCP ${REVISION} (stateless) at /mcp beside the 2025-era sessions`, () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let client: Client;
  const log = capturingLogger();

  /** One stateless JSON-RPC POST to /mcp with the agent's token; headers as a 2026-07-28 client sends them unless overridden. */
  async function rpc(message: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RpcAnswer> {
    const params = message.params as { name?: string } | undefined;
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.securityToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': String(message.method),
        ...(params?.name ? { 'mcp-name': params.name } : {}),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
    const text = await response.text();
    // An event-stream answer carries the response as its last data line.
    const json = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
      ? text.split('\n').filter((line) => line.startsWith('data: ')).at(-1)!.slice(6)
      : text;
    return { status: response.status, body: JSON.parse(json) as RpcAnswer['body'] };
  }

  before(async () => {
    t = await startTestGateway({}, undefined, { logger: log.logger });
    agent = await provisionAgent(t, 'mcp-modern', ['sms', 'email']);
    client = new Client({ name: 'switchboard-modern-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: REVISION } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp?agentId=${agent.agentId}`), { requestInit: { headers: { authorization: `Bearer ${agent.securityToken}` } } }),
    );
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await t?.close();
  });

  it('the v2 client pinned to the revision connects without a session and lists the tools in a fixed order, each with an output schema', async () => {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), REVISION);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      TOOL_ORDER,
    );
    const send = tools.find((tool) => tool.name === 'comms_send_message')!;
    assert.equal(send.inputSchema.required, undefined, 'channel and to, or a conversationId; body, or a WhatsApp template: the route checks which');
    assert.ok(tools.every((tool) => tool.outputSchema?.type === 'object'), 'every tool declares its structured output');
  });

  it('sends a message through comms_send_message end to end: the simulator carries it, the result is structured', async () => {
    const result = (await client.callTool({ name: 'comms_send_message', arguments: { channel: 'sms', to: CUSTOMER, body: 'from a 2026 agent' } })) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content: { type: string; text: string }[];
    };
    assert.notEqual(result.isError, true);
    assert.equal(result.structuredContent?.from, agent.channels.sms!.address);
    assert.deepEqual(JSON.parse(result.content[0]!.text), result.structuredContent);
    assert.ok(t.sim.messages({ provider: 'twilio' }).some((m) => m.id === result.structuredContent?.externalId && m.body === 'from a 2026 agent'));
  });

  it('a failing tool call is an isError result with the contract error body as structured content', async () => {
    const result = (await client.callTool({ name: 'comms_get_usage', arguments: { agentId: 'someone-else' } })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent?.code, 'FORBIDDEN');
  });

  it('server/discover names the revision; lists carry resultType and caching hints', async () => {
    const discover = await rpc({ id: 1, method: 'server/discover', params: { _meta: META } });
    assert.equal(discover.status, 200);
    assert.equal(discover.body.id, 1);
    assert.ok((discover.body.result?.supportedVersions as string[]).includes(REVISION), JSON.stringify(discover.body));
    assert.equal(discover.body.result?.resultType, 'complete');
    const list = await rpc({ id: 'list-1', method: 'tools/list', params: { _meta: META } });
    assert.equal(list.body.id, 'list-1');
    assert.deepEqual([list.body.result?.resultType, list.body.result?.ttlMs, list.body.result?.cacheScope], ['complete', 300_000, 'private']);
    const serverInfo = (discover.body.result?._meta as Record<string, { name?: string }> | undefined)?.['io.modelcontextprotocol/serverInfo'];
    assert.equal(serverInfo?.name, 'switchboard');
  });

  it('methods the revision removed (ping, initialize) are 404 with -32601 and the request id', async () => {
    const ping = await rpc({ id: 2, method: 'ping', params: { _meta: META } });
    assert.deepEqual([ping.status, ping.body.id, ping.body.error?.code], [404, 2, -32601]);
    const initialize = await rpc({ id: 3, method: 'initialize', params: { _meta: META, protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    assert.deepEqual([initialize.status, initialize.body.id, initialize.body.error?.code], [404, 3, -32601]);
  });

  it('refuses what the revision refuses, each error answering the request id', async () => {
    const noMeta = await rpc({ id: 11, method: 'tools/list', params: {} });
    assert.deepEqual([noMeta.body.id, noMeta.body.error?.code], [11, -32602]);
    const unsupported = await rpc(
      { id: 12, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } },
      { 'mcp-protocol-version': '2099-01-01' },
    );
    assert.deepEqual([unsupported.body.id, unsupported.body.error?.code], [12, -32022]);
    const mismatch = await rpc({ id: 13, method: 'tools/list', params: { _meta: META } }, { 'mcp-method': 'tools/call' });
    assert.deepEqual([mismatch.body.id, mismatch.body.error?.code], [13, -32020]);
    const unknownTool = await rpc({ id: 14, method: 'tools/call', params: { name: 'no_such_tool', arguments: {}, _meta: META } });
    assert.deepEqual([unknownTool.body.id, unknownTool.body.error?.code], [14, -32602]);
  });

  it('the traceparent of _meta is in the request log line', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await rpc({ id: 21, method: 'tools/list', params: { _meta: { ...META, traceparent } } });
    const line = log.lines.find((l) => l.msg === 'request' && l.traceparent === traceparent);
    assert.equal(line?.mcpMethod, 'tools/list');
    assert.equal(line?.route, '/mcp');
  });

  it('needs the bearer token like every /mcp request', async () => {
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
    });
    assert.equal(response.status, 401);
  });

  it('a 2025-era client (v1 SDK, initialize and Mcp-Session-Id) works on the same path at the same time', async () => {
    const legacy = await connectMcp(t.url, 'streamable', agent.securityToken, agent.agentId);
    try {
      const { tools } = await legacy.client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        TOOL_ORDER,
      );
      const ping = await legacy.call('comms_ping');
      assert.deepEqual([ping.isError, ping.body.agentId], [false, agent.agentId]);
    } finally {
      await legacy.close();
    }
  });
});
