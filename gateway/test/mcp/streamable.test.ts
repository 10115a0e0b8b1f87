import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { connectSse, connectStreamable, pingResult, startMcpHarness, TOKENS, type McpHarness } from './mcp-harness.js';
import { eventually } from '@switchboard/runtime/testing';

const ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

describe('MCP over Streamable HTTP', () => {
  let harness: McpHarness;
  before(async () => {
    harness = await startMcpHarness();
  });
  after(async () => {
    await harness.close();
  });

  const call = (method: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${harness.url}/mcp`, {
      method,
      headers: { accept: ACCEPT, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** Starts a session by hand and returns its id (the client never opens a GET stream). */
  const initialize = async (token: string) => {
    const response = await call('POST', { authorization: `Bearer ${token}` }, INITIALIZE);
    assert.equal(response.status, 200);
    await response.text();
    return response.headers.get('mcp-session-id')!;
  };

  it('lists tools and calls comms_ping', async () => {
    const { client, transport } = await connectStreamable(harness.url, TOKENS.alice);
    try {
      assert.match(transport.sessionId ?? '', /^[0-9a-f-]{36}$/);
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['comms_ping'],
      );
      assert.deepEqual(pingResult(await client.callTool({ name: 'comms_ping', arguments: {} })), { ok: true, principal: 'client', agentId: 'alice' });
      await eventually(() => harness.sessions.sessionFor('alice')?.kind === 'streamable-http', { message: 'live once the GET stream is open' });
    } finally {
      await client.close();
    }
  });

  it('refuses missing, invalid and other-agent tokens', async () => {
    const cases: Array<[Record<string, string>, string, number, string]> = [
      [{}, '', 401, 'UNAUTHORIZED'],
      [{ authorization: 'Bearer nope' }, '', 401, 'UNAUTHORIZED'],
      [{ authorization: `Basic ${TOKENS.alice}` }, '', 401, 'UNAUTHORIZED'],
      [{ authorization: `Bearer ${TOKENS.alice}` }, '?agentId=bob', 403, 'FORBIDDEN'],
    ];
    for (const [headers, query, status, code] of cases) {
      const response = await fetch(`${harness.url}/mcp${query}`, {
        method: 'POST',
        headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(INITIALIZE),
      });
      assert.equal(response.status, status, code);
      assert.equal(((await response.json()) as { code: string }).code, code);
    }
  });

  it('binds a session to its principal and answers unknown sessions with 404', async () => {
    const sessionId = await initialize(TOKENS.alice);
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    const other = await call('POST', { authorization: `Bearer ${TOKENS.bob}`, 'mcp-session-id': sessionId }, ping);
    assert.equal(other.status, 403);
    assert.equal(((await other.json()) as { code: string }).code, 'FORBIDDEN');
    const team = await call('GET', { authorization: `Bearer ${TOKENS.team}`, 'mcp-session-id': sessionId });
    assert.equal(team.status, 403);
    await team.body?.cancel();

    const unknown = await call('POST', { authorization: `Bearer ${TOKENS.alice}`, 'mcp-session-id': 'no-such-session' }, ping);
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { code: string }).code, 'NOT_FOUND');
    const noSession = await call('POST', { authorization: `Bearer ${TOKENS.alice}` }, ping);
    assert.equal(noSession.status, 400);

    const own = await call('POST', { authorization: `Bearer ${TOKENS.alice}`, 'mcp-session-id': sessionId }, ping);
    assert.equal(own.status, 200);
    assert.match(await own.text(), /"id":2/);
    const deleted = await call('DELETE', { authorization: `Bearer ${TOKENS.alice}`, 'mcp-session-id': sessionId });
    assert.equal(deleted.status, 200);
  });

  it('refuses a notification the client cannot hear instead of dropping it', async () => {
    const sessionId = await initialize(TOKENS.team);
    const session = harness.sessions.get(sessionId)!;
    assert.equal(session.connected, false, 'no GET stream');
    await assert.rejects(session.notify({ method: 'notifications/message', params: { level: 'info', data: 'lost?' } }), /no open stream/i);
    await session.close();
  });

  it('delivers a server notification over the GET stream', async () => {
    const { client } = await connectStreamable(harness.url, TOKENS.team, { agentId: 'carol' });
    const received: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void received.push(n.params));
    try {
      await eventually(() => harness.sessions.sessionFor('carol') !== undefined, { message: 'carol live' });
      await harness.sessions.sessionFor('carol')!.notify({
        method: 'notifications/message',
        params: { level: 'info', logger: 'switchboard.inbound', data: { from: '+15550001' } },
      });
      await eventually(() => received.length === 1, { message: 'the notification' });
      assert.deepEqual(received[0], { level: 'info', logger: 'switchboard.inbound', data: { from: '+15550001' } });
    } finally {
      await client.close();
    }
  });

  it('ends a session on DELETE', async () => {
    const { client, transport } = await connectStreamable(harness.url, TOKENS.bob);
    await eventually(() => harness.sessions.sessionFor('bob') !== undefined, { message: 'bob live' });
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    await eventually(() => harness.sessions.get(sessionId) === undefined, { message: 'session gone' });
    assert.equal(harness.sessions.sessionFor('bob'), undefined);
    const after = await call('POST', { authorization: `Bearer ${TOKENS.bob}`, 'mcp-session-id': sessionId }, { jsonrpc: '2.0', id: 3, method: 'ping' });
    assert.equal(after.status, 404);
    await client.close();
  });

  it('lets a newer session on another transport replace an agent’s SSE session', async () => {
    const sse = await connectSse(harness.url, { token: TOKENS.team, agentId: 'dave' });
    await eventually(() => harness.sessions.sessionFor('dave')?.kind === 'sse', { message: 'sse live' });
    const older = harness.sessions.sessionFor('dave')!;
    const streamable = await connectStreamable(harness.url, TOKENS.team, { agentId: 'dave' });
    try {
      await eventually(() => harness.sessions.sessionFor('dave')?.kind === 'streamable-http', { message: 'streamable live' });
      await eventually(() => older.closed, { message: 'sse session closed' });
      assert.equal(harness.sessions.sessionFor('dave')?.kind, 'streamable-http');
    } finally {
      await sse.client.close();
      await streamable.client.close();
    }
  });

  it('answers sampling/createMessage over the GET stream', async () => {
    const { CreateMessageRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const { client } = await connectStreamable(harness.url, TOKENS.team, { agentId: 'erin', capabilities: { capabilities: { sampling: {} } } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'test', content: { type: 'text', text: 'yes' } }));
    try {
      await eventually(() => harness.sessions.sessionFor('erin') !== undefined, { message: 'erin live' });
      const session = harness.sessions.sessionFor('erin')!;
      assert.equal(session.supportsSampling, true);
      const reply = await session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'ok?' } }], maxTokens: 10 });
      assert.deepEqual(reply.content, { type: 'text', text: 'yes' });
    } finally {
      await client.close();
    }
  });

  it('answers 413 over the body limit and 405 for other methods', async () => {
    const big = await fetch(`${harness.url}/mcp`, {
      method: 'POST',
      headers: { accept: ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${TOKENS.team}` },
      body: `"${'x'.repeat(1024 * 1024)}"`,
    });
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as { code: string }).code, 'PAYLOAD_TOO_LARGE');
    const put = await fetch(`${harness.url}/mcp`, { method: 'PUT' });
    assert.equal(put.status, 405);
    await put.body?.cancel();
  });

  it('closes a session that has no stream and no request for sessionIdleMs', async () => {
    const local = await startMcpHarness({ sessionIdleMs: 100 });
    try {
      const response = await fetch(`${local.url}/mcp`, {
        method: 'POST',
        headers: { accept: ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${TOKENS.team}` },
        body: JSON.stringify(INITIALIZE),
      });
      await response.text();
      const sessionId = response.headers.get('mcp-session-id')!;
      assert.ok(local.sessions.get(sessionId));
      await eventually(() => local.sessions.get(sessionId) === undefined, { message: 'the idle session closes' });
    } finally {
      await local.close();
    }
  });

  it('closeAll ends the GET stream and the session', async () => {
    const local = await startMcpHarness();
    try {
      const { client, transport } = await connectStreamable(local.url, TOKENS.alice);
      let clientError: Error | undefined;
      transport.onerror = (err) => (clientError ??= err);
      await eventually(() => local.sessions.count === 1, { message: 'alice live' });
      await local.sessions.closeAll();
      assert.equal(local.sessions.count, 0);
      await eventually(() => clientError !== undefined, { message: 'the client sees the close' });
      await client.close();
    } finally {
      await local.close();
    }
  });
});
