import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, ProtocolError, StreamableHTTPClientTransport, type McpSubscription } from '@modelcontextprotocol/client';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { eventually } from '@switchboard/runtime/testing';

const REVISION = '2026-07-28';
const CUSTOMER = '+14155550166';
/** The session cap of this file's gateway: small, so that the listen streams' count against it shows. */
const CAP = 3;

const inboxOf = (agentId: string) => `switchboard://agents/${agentId}/inbox`;

/** How a client's request failed: its JSON-RPC code and error data. */
async function refusal(attempt: Promise<unknown>): Promise<{ code: number; data: unknown }> {
  try {
    await attempt;
  } catch (err) {
    assert.ok(err instanceof ProtocolError, `expected a protocol error, got ${String(err)}`);
    return { code: err.code, data: err.data };
  }
  return assert.fail('the request succeeded');
}

describe(`MCP ${REVISION}: the agent's inbox as a resource, and subscriptions/listen`, () => {
  let t: TestGateway;
  let a: Awaited<ReturnType<typeof provisionAgent>>;
  let b: Awaited<ReturnType<typeof provisionAgent>>;
  let closed = false;
  const clients: Client[] = [];
  /** `notifications/resources/updated` URIs each client heard, by client. */
  const updates = new Map<Client, string[]>();

  /** A v2 client pinned to the revision, with `token`, acting for `agentId` when named. */
  async function connect(token: string, agentId?: string): Promise<Client> {
    const client = new Client({ name: 'switchboard-listen-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: REVISION } } });
    const heard: string[] = [];
    updates.set(client, heard);
    client.setNotificationHandler('notifications/resources/updated', (notification) => void heard.push(notification.params.uri));
    const url = new URL(`${t.url}/mcp${agentId ? `?agentId=${agentId}` : ''}`);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }

  before(async () => {
    t = await startTestGateway({ MCP_MAX_SESSIONS_PER_PRINCIPAL: CAP });
    a = await provisionAgent(t, 'listen-a', ['sms']);
    b = await provisionAgent(t, 'listen.b', ['sms']);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    if (!closed) await t.close();
  });

  it("lists a client token's own inbox and the template; a team token naming no agent lists none", async () => {
    const client = await connect(a.securityToken);
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r) => [r.uri, r.mimeType]),
      [[inboxOf('listen-a'), 'application/json']],
    );
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((r) => r.uriTemplate),
      ['switchboard://agents/{agentId}/inbox'],
    );
    const team = await connect(t.teamToken);
    assert.deepEqual((await team.listResources()).resources, []);
    const teamForB = await connect(t.teamToken, 'listen.b');
    assert.deepEqual(
      (await teamForB.listResources()).resources.map((r) => r.uri),
      [inboxOf('listen.b')],
    );
  });

  it('a listen for its inbox hears resources/updated when a message arrives, and resources/read returns the message', async () => {
    const client = await connect(a.securityToken);
    const subscription = await client.listen({ resourceSubscriptions: [inboxOf('listen-a')] });
    try {
      assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [inboxOf('listen-a')]);
      const heard = updates.get(client)!;
      const sent = await t.sim.inbound.sms({ agentId: 'listen-a', from: CUSTOMER, to: a.channels.sms!.address, body: 'are you there?' });
      assert.equal(sent.status, 200);
      await eventually(() => heard.includes(inboxOf('listen-a')), { timeoutMs: 20_000, message: 'the inbox update is heard' });
      const read = await client.readResource({ uri: inboxOf('listen-a') });
      const [content] = read.contents;
      assert.equal(content?.mimeType, 'application/json');
      const page = JSON.parse((content as { text: string }).text) as { agentId: string; entries: { type: string; payload: { body?: string } }[] };
      assert.equal(page.agentId, 'listen-a');
      assert.deepEqual(
        page.entries.filter((e) => e.type === 'message.received').map((e) => e.payload.body),
        ['are you there?'],
      );
      // Another agent's message is not this listen's to hear.
      const before = heard.length;
      assert.equal((await t.sim.inbound.sms({ agentId: 'listen.b', from: CUSTOMER, to: b.channels.sms!.address, body: 'for b' })).status, 200);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(heard.slice(before), []);
    } finally {
      await subscription.close();
    }
  });

  it('resources/read of an inbox is not cached: ttlMs is 0', async () => {
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${a.securityToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': 'resources/read',
        'mcp-name': inboxOf('listen-a'),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/read',
        params: {
          uri: inboxOf('listen-a'),
          _meta: { 'io.modelcontextprotocol/protocolVersion': REVISION, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const json = (response.headers.get('content-type') ?? '').startsWith('text/event-stream') ? text.split('\n').filter((l) => l.startsWith('data: ')).at(-1)!.slice(6) : text;
    const { result } = JSON.parse(json) as { result: { ttlMs: number; cacheScope: string } };
    assert.equal(result.ttlMs, 0);
    assert.equal(result.cacheScope, 'private');
  });

  it("another agent's inbox can be neither read nor listened to with a client token; an unknown URI is not found", async () => {
    const client = await connect(a.securityToken);
    // The revision's "resource not found": -32602 with the URI in the data (the SDK's ResourceNotFoundError).
    assert.deepEqual(await refusal(client.readResource({ uri: inboxOf('listen.b') })), { code: -32602, data: { uri: inboxOf('listen.b') } });
    const unknown = 'switchboard://agents/listen-a/outbox';
    assert.deepEqual(await refusal(client.readResource({ uri: unknown })), { code: -32602, data: { uri: unknown } });
    assert.equal((await refusal(client.listen({ resourceSubscriptions: [inboxOf('listen.b')] }))).code, -32602);
    assert.equal((await refusal(client.listen({ resourceSubscriptions: [inboxOf('listen-a'), 'file:///etc/passwd'] }))).code, -32602);
  });

  it("a team token may read and listen to any agent's inbox; the hint names agents with dots exactly", async () => {
    const team = await connect(t.teamToken);
    const subscription = await team.listen({ resourceSubscriptions: [inboxOf('listen.b')] });
    try {
      const heard = updates.get(team)!;
      assert.equal((await t.sim.inbound.sms({ agentId: 'listen.b', from: CUSTOMER, to: b.channels.sms!.address, body: 'team hears' })).status, 200);
      await eventually(() => heard.includes(inboxOf('listen.b')), { timeoutMs: 20_000, message: 'the team hears b' });
      const read = await team.readResource({ uri: inboxOf('listen.b') });
      assert.match((read.contents[0] as { text: string }).text, /team hears/);
    } finally {
      await subscription.close();
    }
  });

  it("listen streams count against the principal's cap: one more evicts the oldest", async () => {
    const client = await connect(b.securityToken);
    const opened: McpSubscription[] = [];
    const streamsBefore = t.gateway.mcp.census().streams;
    for (let i = 0; i < CAP; i++) opened.push(await client.listen({ resourceSubscriptions: [inboxOf('listen.b')] }));
    // Open event streams, as switchboard_sse_sessions reports them.
    assert.equal(t.gateway.mcp.census().streams, streamsBefore + CAP);
    const ended = Promise.race([opened[0]!.closed, new Promise((r) => setTimeout(() => r('still open'), 10_000))]);
    const newest = await client.listen({ resourceSubscriptions: [inboxOf('listen.b')] });
    assert.equal(await ended, 'remote', 'the oldest listen stream was not ended');
    // The newest one still hears.
    const heard = updates.get(client)!;
    const before = heard.length;
    assert.equal((await t.sim.inbound.sms({ agentId: 'listen.b', from: CUSTOMER, to: b.channels.sms!.address, body: 'still here' })).status, 200);
    await eventually(() => heard.length > before, { timeoutMs: 20_000, message: 'the newest stream hears' });
    await Promise.all([...opened.slice(1), newest].map((s) => s.close()));
    // A listen the client closed is released: it no longer counts.
    await eventually(() => t.gateway.mcp.census().streams === streamsBefore, { timeoutMs: 20_000, message: 'the closed streams are released' });
  });

  it('a 2025-era session subscribes with resources/subscribe and hears resources/updated beside its notifications/message', async () => {
    const legacy = await connectMcp(t.url, 'streamable', a.securityToken);
    try {
      const heard: string[] = [];
      legacy.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
      assert.deepEqual(legacy.client.getServerCapabilities()?.resources, { subscribe: true });
      assert.deepEqual(
        (await legacy.client.listResources()).resources.map((r) => r.uri),
        [inboxOf('listen-a')],
      );
      await assert.rejects(legacy.client.subscribeResource({ uri: inboxOf('listen.b') }), (err: { code?: number }) => err.code === -32602);
      await assert.rejects(legacy.client.readResource({ uri: inboxOf('listen.b') }), (err: { code?: number }) => err.code === -32002);
      await legacy.client.subscribeResource({ uri: inboxOf('listen-a') });
      assert.equal((await t.sim.inbound.sms({ agentId: 'listen-a', from: CUSTOMER, to: a.channels.sms!.address, body: 'legacy hears' })).status, 200);
      // The live delivery keeps its contract: the message itself as notifications/message.
      assert.equal((await legacy.next('switchboard.inbound', (d) => d.body === 'legacy hears', 20_000)).body, 'legacy hears');
      await eventually(() => heard.includes(inboxOf('listen-a')), { timeoutMs: 20_000, message: 'the legacy session hears the inbox update' });
      const read = await legacy.client.readResource({ uri: inboxOf('listen-a') });
      assert.match((read.contents[0] as { text: string }).text, /legacy hears/);
      await legacy.client.unsubscribeResource({ uri: inboxOf('listen-a') });
      const before = heard.length;
      assert.equal((await t.sim.inbound.sms({ agentId: 'listen-a', from: CUSTOMER, to: a.channels.sms!.address, body: 'not heard' })).status, 200);
      await legacy.next('switchboard.inbound', (d) => d.body === 'not heard', 20_000);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(heard.slice(before), []);
    } finally {
      await legacy.close();
    }
  });

  it('a listen stream ends, gracefully, when the gateway closes', async () => {
    const client = await connect(a.securityToken);
    const subscription = await client.listen({ resourceSubscriptions: [inboxOf('listen-a')] });
    closed = true;
    await t.close();
    const how = await Promise.race([subscription.closed, new Promise((r) => setTimeout(() => r('still open'), 10_000))]);
    assert.equal(how, 'graceful');
  });
});
