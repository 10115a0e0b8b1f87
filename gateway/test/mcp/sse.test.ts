import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { McpSession } from '../../src/mcp/mcp-session.js';
import { connectSse, pingResult, startMcpHarness, TOKENS, type McpHarness } from './mcp-harness.js';
import { RawSseStream } from './sse-reader.js';
import { eventually } from '@switchboard/runtime/testing';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

describe('MCP over HTTP+SSE', () => {
  let harness: McpHarness;
  const opened: McpSession[] = [];
  const closed: McpSession[] = [];
  before(async () => {
    harness = await startMcpHarness({ keepAliveMs: 50 });
    harness.sessions.on('open', (s) => opened.push(s));
    harness.sessions.on('close', (s) => closed.push(s));
  });
  after(async () => {
    await harness.close();
  });

  const post = (sessionId: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${harness.url}/messages?sessionId=${sessionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('lists tools and calls comms_ping; a client token stands for its own agent', async () => {
    const { client } = await connectSse(harness.url, { token: TOKENS.alice });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['comms_ping'],
      );
      const result = await client.callTool({ name: 'comms_ping', arguments: {} });
      assert.deepEqual(pingResult(result), { ok: true, principal: 'client', agentId: 'alice' });
    } finally {
      await client.close();
    }
  });

  it('lets a team token act for any agent it names', async () => {
    const { client } = await connectSse(harness.url, { token: TOKENS.team, agentId: 'bob' });
    try {
      assert.deepEqual(pingResult(await client.callTool({ name: 'comms_ping', arguments: {} })), { ok: true, principal: 'team', agentId: 'bob' });
    } finally {
      await client.close();
    }
  });

  it('refuses missing, invalid and other-agent tokens with the contract error body', async () => {
    const cases: Array<[string, number, string]> = [
      ['/sse', 401, 'UNAUTHORIZED'],
      ['/sse?token=nope', 401, 'UNAUTHORIZED'],
      [`/sse?token=${TOKENS.alice}&agentId=bob`, 403, 'FORBIDDEN'],
      [`/sse?token=${TOKENS.team}&agentId=-bad`, 400, 'VALIDATION_FAILED'],
    ];
    for (const [path, status, code] of cases) {
      const response = await fetch(harness.url + path, { headers: { accept: 'text/event-stream' } });
      assert.equal(response.status, status, path);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const body = (await response.json()) as { error: string; code: string };
      assert.equal(body.code, code, path);
      assert.equal(typeof body.error, 'string');
    }
  });

  it('binds POST /messages to the session principal: it needs the session\'s own bearer token', async () => {
    const stream = await RawSseStream.open(`${harness.url}/sse?token=${TOKENS.alice}`);
    try {
      const sessionId = await stream.sessionId();
      const anonymous = await post(sessionId, INITIALIZE);
      assert.equal(anonymous.status, 401, 'the session id alone is not a credential');
      assert.equal(((await anonymous.json()) as { code: string }).code, 'UNAUTHORIZED');
      for (const token of [TOKENS.bob, TOKENS.team, TOKENS.orchestrator]) {
        const refused = await post(sessionId, INITIALIZE, { authorization: `Bearer ${token}` });
        assert.equal(refused.status, 403, token);
        assert.equal(((await refused.json()) as { code: string }).code, 'FORBIDDEN');
      }
      const invalid = await post(sessionId, INITIALIZE, { authorization: 'Bearer nope' });
      assert.equal(invalid.status, 401);
      assert.equal(stream.frames.filter((f) => f.event === 'message').length, 0, 'nothing refused reached the server');

      const sameCaller = await post(sessionId, INITIALIZE, { authorization: `Bearer ${TOKENS.alice}` });
      assert.equal(sameCaller.status, 202);
      const bound = await post(sessionId, { jsonrpc: '2.0', id: 2, method: 'ping' }, { authorization: `Bearer ${TOKENS.alice}` });
      assert.equal(bound.status, 202);
      const reply = await stream.next((f) => f.event === 'message' && JSON.parse(f.data!).id === 2);
      assert.deepEqual(JSON.parse(reply.data!), { jsonrpc: '2.0', id: 2, result: {} });
    } finally {
      stream.close();
    }
  });

  it('answers malformed, unknown-session, non-JSON and oversized POSTs with coded errors', async () => {
    const stream = await RawSseStream.open(`${harness.url}/sse?token=${TOKENS.team}`);
    try {
      const sessionId = await stream.sessionId();
      const team = { authorization: `Bearer ${TOKENS.team}` };
      const expectations: Array<[Promise<Response>, number, string]> = [
        [post('00000000-0000-0000-0000-000000000000', INITIALIZE, team), 404, 'NOT_FOUND'],
        [fetch(`${harness.url}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...team }, body: '{}' }), 400, 'BAD_REQUEST'],
        [post(sessionId, '{not json', team), 400, 'BAD_REQUEST'],
        [post(sessionId, { hello: 'world' }, team), 400, 'BAD_REQUEST'],
        [post(sessionId, 'x', { 'content-type': 'text/plain', ...team }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
        [post(sessionId, `"${'x'.repeat(1024 * 1024)}"`, team), 413, 'PAYLOAD_TOO_LARGE'],
      ];
      for (const [pending, status, code] of expectations) {
        const response = await pending;
        assert.equal(response.status, status, code);
        assert.equal(((await response.json()) as { code: string }).code, code);
      }
    } finally {
      stream.close();
    }
  });

  it('opens with the endpoint event and keeps the stream alive with comment lines', async () => {
    const stream = await RawSseStream.open(`${harness.url}/sse?token=${TOKENS.team}`);
    try {
      assert.equal(stream.response.headers.get('content-type'), 'text/event-stream');
      await stream.next((f) => f.event === 'endpoint');
      assert.equal(stream.frames[0]?.event, 'endpoint', 'the endpoint event comes first');
      assert.match(stream.frames[0]!.data!, /^\/messages\?sessionId=[0-9a-f-]{36}$/);
      await stream.next((f) => f.comment === 'keep-alive');
    } finally {
      stream.close();
    }
  });

  it('delivers a server notification to the live session of an agent', async () => {
    const { client } = await connectSse(harness.url, { token: TOKENS.alice });
    const received: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void received.push(n.params));
    try {
      await eventually(() => harness.sessions.sessionFor('alice') !== undefined, { message: 'alice live' });
      const session = harness.sessions.sessionFor('alice')!;
      assert.ok(opened.includes(session), 'open event fired');
      assert.equal(session.kind, 'sse');
      await session.notify({ method: 'notifications/message', params: { level: 'info', logger: 'switchboard.inbound', data: { body: 'hi' } } });
      await eventually(() => received.length === 1, { message: 'the notification' });
      assert.deepEqual(received[0], { level: 'info', logger: 'switchboard.inbound', data: { body: 'hi' } });
    } finally {
      await client.close();
    }
  });

  it('replaces an older session for the same agent, and the older close leaves the newer registered', async () => {
    const first = await connectSse(harness.url, { token: TOKENS.alice });
    let firstError: Error | undefined;
    first.transport.onerror = (err) => (firstError ??= err);
    await eventually(() => harness.sessions.sessionFor('alice') !== undefined, { message: 'first live' });
    const older = harness.sessions.sessionFor('alice')!;
    const second = await connectSse(harness.url, { token: TOKENS.alice });
    try {
      await eventually(() => harness.sessions.sessionFor('alice') !== older, { message: 'second live' });
      const newer = harness.sessions.sessionFor('alice')!;
      await eventually(() => older.closed, { message: 'older closed' });
      assert.ok(closed.includes(older), 'close event for the older session');
      assert.equal(harness.sessions.sessionFor('alice'), newer, 'the older close did not unregister the newer');
      await eventually(() => firstError !== undefined, { message: 'first client sees its stream end' });
      assert.deepEqual(pingResult(await second.client.callTool({ name: 'comms_ping', arguments: {} })), {
        ok: true,
        principal: 'client',
        agentId: 'alice',
      });
      await first.client.close();
      assert.equal(harness.sessions.sessionFor('alice'), newer);
    } finally {
      await first.client.close();
      await second.client.close();
    }
  });

  it('answers sampling/createMessage through a client that declared sampling', async () => {
    const { CreateMessageRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const { client } = await connectSse(harness.url, { token: TOKENS.bob }, { capabilities: { capabilities: { sampling: {} } } });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: 'assistant',
      model: 'test',
      content: { type: 'text', text: `heard: ${(request.params.messages[0]!.content as { text: string }).text}` },
    }));
    try {
      await eventually(() => harness.sessions.sessionFor('bob') !== undefined, { message: 'bob live' });
      const session = harness.sessions.sessionFor('bob')!;
      assert.equal(session.supportsSampling, true);
      const reply = await session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 50 });
      assert.deepEqual(reply.content, { type: 'text', text: 'heard: hello' });
    } finally {
      await client.close();
    }
  });

  it('routes other methods and paths past the MCP routes', async () => {
    const put = await fetch(`${harness.url}/sse`, { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET');
    assert.equal(((await put.json()) as { code: string }).code, 'METHOD_NOT_ALLOWED');
    const other = await fetch(`${harness.url}/not-mcp`);
    assert.equal(other.status, 404, 'the REST pipeline still answers everything else');
  });
});

describe('MCP auth lockout', () => {
  it('refuses bad tokens from a locked-out address with Retry-After, and still lets a good token through', async () => {
    const harness = await startMcpHarness({ lockAfter: 2 });
    try {
      for (let i = 0; i < 2; i++) assert.equal((await fetch(`${harness.url}/sse?token=bad${i}`)).status, 401);
      const locked = await fetch(`${harness.url}/sse?token=bad-again`);
      assert.equal(locked.status, 429);
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
      assert.equal(((await locked.json()) as { code: string }).code, 'RATE_LIMITED');
      const mcp = await fetch(`${harness.url}/mcp`, { method: 'POST', headers: { authorization: 'Bearer bad-again' } });
      assert.equal(mcp.status, 429, 'the lockout covers /mcp too');
      const controller = new AbortController();
      const good = await fetch(`${harness.url}/sse?token=${TOKENS.alice}`, { signal: controller.signal });
      assert.equal(good.status, 200, 'a good token passes while the address is locked');
      assert.match(good.headers.get('content-type') ?? '', /^text\/event-stream/);
      controller.abort();
      assert.ok(harness.lockout.retryAfter('127.0.0.1') > 0, 'a good token does not lift the lock for the guesser');
    } finally {
      await harness.close();
    }
  });
});

describe('closeAll', () => {
  it('ends every stream cleanly and refuses new sessions', async () => {
    const harness = await startMcpHarness();
    try {
      const raw = await RawSseStream.open(`${harness.url}/sse?token=${TOKENS.team}`);
      await raw.sessionId();
      const { client, transport } = await connectSse(harness.url, { token: TOKENS.alice });
      let clientError: Error | undefined;
      transport.onerror = (err) => (clientError ??= err);
      await eventually(() => harness.sessions.count === 1, { message: 'alice live' });

      await harness.sessions.closeAll();
      assert.equal(await raw.ended, true, 'the raw stream ended cleanly');
      await eventually(() => clientError !== undefined, { message: 'the client sees the close' });
      assert.equal(harness.sessions.count, 0);
      const refused = await fetch(`${harness.url}/sse?token=${TOKENS.alice}`);
      assert.equal(refused.status, 503);
      assert.equal(((await refused.json()) as { code: string }).code, 'UNAVAILABLE');
      await client.close();
    } finally {
      await harness.close();
    }
  });
});
