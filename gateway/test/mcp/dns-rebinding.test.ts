import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ServerNames } from '../../src/mcp/server-names.js';
import { rawRequest, startMcpHarness, TOKENS, type McpHarness } from './mcp-harness.js';
import { RawSseStream } from './sse-reader.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('MCP DNS-rebinding protection', () => {
  let harness: McpHarness;
  let sessionId: string;
  let stream: RawSseStream;
  before(async () => {
    harness = await startMcpHarness({ serverNames: new ServerNames(['mcp.example.com']) });
    stream = await RawSseStream.open(`${harness.url}/sse?token=${TOKENS.team}`);
    sessionId = await stream.sessionId();
  });
  after(async () => {
    stream.close();
    await harness.close();
  });

  const team = { authorization: `Bearer ${TOKENS.team}` };
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  /** One request to each MCP route, authorised, with the given Host and Origin. */
  const routes = (headers: Record<string, string>) => [
    { name: 'GET /sse', send: () => rawRequest(`${harness.url}/sse?token=${TOKENS.team}`, { headers: { accept: 'text/event-stream', ...headers } }) },
    {
      name: 'POST /messages',
      send: () =>
        rawRequest(`${harness.url}/messages?sessionId=${sessionId}`, {
          method: 'POST',
          headers: { ...json, ...team, ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
        }),
    },
    { name: 'POST /mcp', send: () => rawRequest(`${harness.url}/mcp`, { method: 'POST', headers: { ...json, ...team, ...headers }, body: INITIALIZE }) },
    { name: 'GET /mcp', send: () => rawRequest(`${harness.url}/mcp`, { headers: { accept: 'text/event-stream', ...team, 'mcp-session-id': 'x', ...headers } }) },
  ];

  it('refuses a Host that names another server on /sse, /messages and /mcp with 403 FORBIDDEN', async () => {
    for (const route of routes({ host: 'evil.example.com' })) {
      const answer = await route.send();
      assert.equal(answer.status, 403, route.name);
      assert.equal((answer.body as { code: string }).code, 'FORBIDDEN', route.name);
      assert.match((answer.body as { error: string }).error, /Host/, route.name);
    }
  });

  it('refuses an Origin that names another server, and an opaque one, even with a loopback Host', async () => {
    for (const origin of ['http://evil.example.com', 'https://127.0.0.1.evil.example.com:8443', 'null']) {
      for (const route of routes({ host: `127.0.0.1:${harness.port}`, origin })) {
        const answer = await route.send();
        assert.equal(answer.status, 403, `${route.name} ${origin}`);
        assert.equal((answer.body as { code: string }).code, 'FORBIDDEN');
      }
    }
  });

  it('accepts loopback names on any port, and allow-listed names, in Host and Origin', async () => {
    const accepted: Array<Record<string, string>> = [
      { host: `localhost:${harness.port}` },
      { host: `127.0.0.1:${harness.port}`, origin: 'http://localhost:5173' },
      { host: `[::1]:${harness.port}`, origin: `http://[::1]:${harness.port}` },
      { host: 'MCP.example.com', origin: 'https://mcp.example.com' },
    ];
    for (const headers of accepted) {
      const [sse, messages, mcp] = await Promise.all(routes(headers).slice(0, 3).map((route) => route.send()));
      assert.equal(sse!.status, 200, `GET /sse ${JSON.stringify(headers)}`);
      assert.equal(messages!.status, 202, `POST /messages ${JSON.stringify(headers)}`);
      assert.equal(mcp!.status, 200, `POST /mcp ${JSON.stringify(headers)}`);
    }
  });

  it('checks the Host before the credential, so a rebinding page learns nothing about tokens', async () => {
    const answer = await rawRequest(`${harness.url}/sse?token=nope`, { headers: { host: 'evil.example.com' } });
    assert.equal(answer.status, 403);
    assert.equal(harness.lockout.retryAfter('127.0.0.1'), 0, 'a refused host does not count as a failed authentication');
  });
});

describe('ServerNames', () => {
  it('compares host names without ports and refuses malformed values', () => {
    const names = new ServerNames(['https://switchboard.example.org/base', 'internal:8080', ' ', 'bad value']);
    for (const host of ['switchboard.example.org', 'switchboard.example.org:443', 'internal', 'INTERNAL:1', 'localhost:1', '[::1]']) {
      assert.doesNotThrow(() => names.check({ host }), host);
    }
    for (const host of ['evil.example.com', 'localhost.evil.example.com', 'user@localhost', 'localhost/x', '', 'bad value']) {
      assert.throws(() => names.check({ host }), /Host/, host);
    }
    assert.throws(() => names.check({}), /Host/, 'a request without Host is refused');
    assert.throws(() => names.check({ host: 'internal', origin: 'http://user@internal' }), /Origin/);
    assert.doesNotThrow(() => names.check({ host: 'internal', origin: 'http://internal:9999' }));
  });
});
