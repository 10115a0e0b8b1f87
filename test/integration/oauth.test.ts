import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthorizationServer, type TestAuthorizationServer } from '../helpers/authorization-server.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';

const CUSTOMER = '+14155550123';
const AGENT = 'oauth-agent';
const SCOPES = ['switchboard:send', 'switchboard:send:sms', 'switchboard:send:email', 'switchboard:call', 'switchboard:read', 'switchboard:configure'];

describe('OAuth 2.1 resource server: JWT access tokens from a real authorization server (oidc-provider)', () => {
  let as: TestAuthorizationServer;
  let t: TestGateway;
  let staticToken: string;
  before(async () => {
    as = await startAuthorizationServer(
      [
        { clientId: 'sender-app', agentId: AGENT, scope: 'switchboard:send switchboard:read' },
        { clientId: 'reader-app', agentId: AGENT, scope: 'switchboard:read' },
        { clientId: 'email-app', agentId: AGENT, scope: 'switchboard:send:email' },
        { clientId: 'short-app', agentId: AGENT, scope: 'switchboard:read', ttlSeconds: 1 },
        { clientId: 'nobody-app', scope: 'switchboard:read' },
      ],
      SCOPES,
    );
    // No clock skew, so a token with a 1 s lifetime is expired 2 s later.
    t = await startTestGateway({ OAUTH_AUTHORIZATION_SERVERS: as.issuer, OAUTH_CLOCK_SKEW_SECONDS: 0, AUTH_LOCKOUT_ATTEMPTS: 1000 });
    staticToken = (await provisionAgent(t, AGENT, ['sms', 'email'])).securityToken;
    await provisionAgent(t, 'other-agent', ['sms']);
  });
  after(async () => {
    await t?.close();
    await as?.close();
  });

  const send = (token: string, json: Record<string, unknown>) => t.call('POST', '/api/v1/send-message', { token, json });
  const sms = { channel: 'sms', to: CUSTOMER, body: 'Sent with an OAuth access token' };
  const restToken = (client: string, scope: string) => as.token(client, t.url, scope);

  it('publishes the protected-resource metadata for the API and for the MCP endpoint (RFC 9728)', async () => {
    const api = await t.call('GET', '/.well-known/oauth-protected-resource');
    assert.equal(api.status, 200);
    const doc = (await api.json()) as Record<string, unknown>;
    assert.equal(doc.resource, t.url);
    assert.deepEqual(doc.authorization_servers, [as.issuer]);
    assert.deepEqual(doc.bearer_methods_supported, ['header']);
    assert.ok((doc.scopes_supported as string[]).includes('switchboard:send:sms'));
    const mcp = await t.call('GET', '/.well-known/oauth-protected-resource/mcp');
    assert.equal(mcp.status, 200);
    assert.equal(((await mcp.json()) as { resource: string }).resource, `${t.url}/mcp`);
  });

  it('answers a request without a token 401 with a challenge naming the metadata', async () => {
    const rest = await send('', sms);
    assert.equal(rest.status, 401);
    assert.equal(((await rest.json()) as { code: string }).code, 'UNAUTHORIZED');
    assert.equal(rest.headers.get('www-authenticate'), `Bearer realm="switchboard", resource_metadata="${t.url}/.well-known/oauth-protected-resource"`);
    const mcp = await t.call('POST', '/mcp', { json: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: { accept: 'application/json, text/event-stream' } });
    assert.equal(mcp.status, 401);
    assert.equal(((await mcp.json()) as { code: string }).code, 'UNAUTHORIZED');
    assert.match(mcp.headers.get('www-authenticate') ?? '', new RegExp(`^Bearer .*resource_metadata="${t.url}/\\.well-known/oauth-protected-resource/mcp"`));
  });

  it('sends a message with a valid access token (REST), as the agent its claim names', async () => {
    const res = await send(await restToken('sender-app', 'switchboard:send switchboard:read'), sms);
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { externalId: string };
    assert.ok(t.sim.messages({ channel: 'sms', to: CUSTOMER }).some((m) => m.id === body.externalId), 'the simulator did not record the message');
  });

  it('keeps the static tokens working beside OAuth', async () => {
    assert.equal((await send(staticToken, sms)).status, 200);
    assert.equal((await t.call('GET', `/api/v1/channel-status?agentId=${AGENT}`, { token: t.teamToken })).status, 200);
  });

  it('refuses a token for another resource (audience, RFC 8707) with 401 invalid_token', async () => {
    const res = await send(await as.token('sender-app', 'https://elsewhere.example', 'switchboard:send'), sms);
    assert.equal(res.status, 401);
    const body = (await res.json()) as { code: string; error: string };
    assert.equal(body.code, 'UNAUTHORIZED');
    assert.match(body.error, /another resource/);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  it('refuses an expired token with 401 invalid_token', async () => {
    const token = await restToken('short-app', 'switchboard:read');
    const fresh = await t.call('GET', '/api/v1/channel-status', { token });
    assert.equal(fresh.status, 200, 'the token works while it is fresh');
    await new Promise((r) => setTimeout(r, 2100));
    const res = await t.call('GET', '/api/v1/channel-status', { token });
    assert.equal(res.status, 401);
    assert.match(((await res.json()) as { error: string }).error, /expired/);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  it('refuses a missing scope with 403 insufficient_scope, naming the scope (step-up)', async () => {
    const res = await send(await restToken('reader-app', 'switchboard:read'), sms);
    const challenge = await assertStepUp(res, 'switchboard:send:sms');
    assert.match(challenge, /resource_metadata="/);
  });

  it('limits a per-channel scope to its channel', async () => {
    const token = await restToken('email-app', 'switchboard:send:email');
    assert.equal((await send(token, { channel: 'email', to: 'ada@example.com', subject: 'Hi', body: 'By email' })).status, 200);
    const res = await send(token, sms);
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /scope="switchboard:send:sms"/);
  });

  it("refuses a token acting for another agent than its claim's with 403", async () => {
    const res = await send(await restToken('sender-app', 'switchboard:send'), { ...sms, agentId: 'other-agent' });
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { code: string }).code, 'FORBIDDEN');
  });

  it('refuses a token that names no agent with 401 invalid_token', async () => {
    const res = await t.call('GET', `/api/v1/channel-status?agentId=${AGENT}`, { token: await restToken('nobody-app', 'switchboard:read') });
    assert.equal(res.status, 401);
    assert.match(((await res.json()) as { error: string }).error, /switchboard_agent/);
  });

  it('never accepts a token in a query string on /api/v1 or /mcp (400 with the contract error body)', async () => {
    const token = await restToken('sender-app', 'switchboard:read');
    for (const path of [`/api/v1/channel-status?access_token=${token}`, `/api/v1/channel-status?token=${staticToken}`]) {
      const res = await t.call('GET', path);
      assert.equal(res.status, 400, path);
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(body.code, 'BAD_REQUEST');
      assert.match(body.error, /query string/);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
    }
    const mcp = await t.call('POST', `/mcp?access_token=${token}`, {
      json: { jsonrpc: '2.0', id: 1, method: 'ping' },
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    });
    assert.equal(mcp.status, 400);
    assert.equal(((await mcp.json()) as { code: string }).code, 'BAD_REQUEST');
  });

  it('lists tools and sends a message over MCP (Streamable HTTP, official client) with an access token for the MCP resource', async () => {
    const token = await as.token('sender-app', `${t.url}/mcp`, 'switchboard:send switchboard:read');
    const client = await connectMcp(t.url, 'streamable', token);
    try {
      const { tools } = await client.client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'comms_send_message'));
      const sent = await client.call('comms_send_message', { channel: 'sms', to: CUSTOMER, body: 'Over MCP with OAuth' });
      assert.equal(sent.isError, false, JSON.stringify(sent.body));
      assert.ok(t.sim.messages({ channel: 'sms', to: CUSTOMER }).some((m) => m.id === sent.body.externalId));
    } finally {
      await client.close();
    }
  });

  it('refuses an MCP tool call whose scope the token lacks with HTTP 403 insufficient_scope, naming the scope (step-up)', async () => {
    const token = await as.token('reader-app', `${t.url}/mcp`, 'switchboard:read');
    const client = await connectMcp(t.url, 'streamable', token);
    try {
      const status = await client.call('comms_get_channel_status');
      assert.equal(status.isError, false, JSON.stringify(status.body));
      await assert.rejects(client.call('comms_send_message', { channel: 'sms', to: CUSTOMER, body: 'Not allowed' }), (err: { code?: number; message: string }) => {
        assert.equal(err.code, 403);
        assert.match(err.message, /switchboard:send:sms/);
        return true;
      });
      const sessionId = (client.client.transport as { sessionId?: string }).sessionId!;
      const res = await t.call('POST', '/mcp', {
        token,
        json: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'comms_send_message', arguments: { channel: 'sms', to: CUSTOMER, body: 'x' } } },
        headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      });
      const challenge = await assertStepUp(res, 'switchboard:send:sms');
      assert.match(challenge, new RegExp(`resource_metadata="${t.url}/\\.well-known/oauth-protected-resource/mcp"`));
      assert.equal(t.sim.messages({ channel: 'sms' }).filter((m) => m.body === 'x' || m.body === 'Not allowed').length, 0, 'nothing was sent');
    } finally {
      await client.close();
    }
  });

  it('lets a session continue with a stepped-up token: tool calls act with the rights of each request', async () => {
    const client = await connectMcp(t.url, 'streamable', await as.token('reader-app', `${t.url}/mcp`, 'switchboard:read'));
    try {
      const sessionId = (client.client.transport as { sessionId?: string }).sessionId!;
      const stepped = await as.token('sender-app', `${t.url}/mcp`, 'switchboard:send');
      const res = await t.call('POST', '/mcp', {
        token: stepped,
        json: { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'comms_send_message', arguments: { channel: 'sms', to: CUSTOMER, body: 'Stepped up' } } },
        headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      // The answer comes as JSON or as one SSE message event.
      const data = text.trimStart().startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!;
      const result = JSON.parse(data) as { result: { isError?: boolean; content: { text: string }[] } };
      assert.notEqual(result.result.isError, true, result.result.content[0]!.text);
      assert.ok(t.sim.messages({ channel: 'sms', to: CUSTOMER }).some((m) => m.body === 'Stepped up'));
    } finally {
      await client.close();
    }
  });
});

/** A 403 asking for a step-up: the contract's FORBIDDEN body and a Bearer challenge, both naming `scope`. Returns the challenge. */
async function assertStepUp(res: Response, scope: string): Promise<string> {
  assert.equal(res.status, 403);
  const body = (await res.json()) as { code: string; error: string };
  assert.equal(body.code, 'FORBIDDEN');
  assert.ok(body.error.includes(scope), body.error);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /error="insufficient_scope"/);
  assert.ok(challenge.includes(`scope="${scope}"`), challenge);
  return challenge;
}
