import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { startAuthorizationServer, type TestAuthorizationServer } from '../helpers/authorization-server.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';

/**
 * The wire contract's Conventions and Tokens, checked against every operation the served OpenAPI
 * document lists rather than route by route: a new route is held to them without a new test.
 */

const AGENT = 'conformance-agent';
const SCOPES = ['switchboard:send', 'switchboard:send:sms', 'switchboard:send:email', 'switchboard:call', 'switchboard:read', 'switchboard:configure'];
const UNKNOWN = 'zzUnknownField';

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly op: {
    parameters?: { name: string; in: string }[];
    requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
    security?: Record<string, string[]>[];
  };
}

interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string; allowed?: string[] }[];
}

describe('Contract conformance: unknown fields and access-token scopes on every operation of the OpenAPI document', () => {
  let as: TestAuthorizationServer;
  let t: TestGateway;
  let operations: Operation[];
  before(async () => {
    as = await startAuthorizationServer(
      [
        { clientId: 'no-scope-app', agentId: AGENT, scope: 'switchboard:read' },
        { clientId: 'all-scopes-app', agentId: AGENT, scope: SCOPES.join(' ') },
      ],
      SCOPES,
    );
    t = await startTestGateway({ OAUTH_AUTHORIZATION_SERVERS: as.issuer, AUTH_LOCKOUT_ATTEMPTS: 1000 });
    await provisionAgent(t, AGENT, ['sms', 'email']);
    const doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as { paths: Record<string, Record<string, Operation['op']>> };
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
    assert.ok(operations.filter(isApi).length >= 20, 'the document lists the /api/v1 operations');
  });
  after(async () => {
    await t?.close();
    await as?.close();
  });

  /** The operation's path with each `{param}` filled in. */
  const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'zz-param');
  const queryNames = (o: Operation) => (o.op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const jsonBody = (o: Operation) => o.op.requestBody?.content?.['application/json'];
  const isApi = (o: Operation) => o.path.startsWith('/api/v1/');
  /** Public operations say `security: []` (older documents left it out). */
  const isPublic = (o: Operation) => (o.op.security ?? []).length === 0;
  /** The scope an access token needs for the operation, as the document lists it; undefined when access tokens may not call it. */
  const scopeOf = (o: Operation) => o.op.security?.find((s) => s.accessToken)?.accessToken?.[0];

  /** A 400 BAD_REQUEST naming `UNKNOWN` in `where` and, when known, exactly the allowed fields. */
  async function assertUnknownRefused(res: Response, what: string, where: string, allowed?: readonly string[]): Promise<void> {
    const body = (await res.json()) as ErrorBody;
    assert.deepEqual([res.status, body.code], [400, 'BAD_REQUEST'], `${what}: ${JSON.stringify(body)}`);
    assert.ok(body.error.startsWith(`Unknown field ${UNKNOWN} in ${where}; `), `${what}: ${body.error}`);
    const detail = body.details?.find((d) => d.field === UNKNOWN);
    assert.ok(detail?.allowed, `${what}: a detail names ${UNKNOWN} with the allowed fields: ${JSON.stringify(body.details)}`);
    if (allowed === undefined) return;
    assert.deepEqual([...detail.allowed].sort(), [...allowed].sort(), what);
    assert.ok(body.error.endsWith(allowed.length > 0 ? `allowed: ${allowed.join(', ')}.` : 'it takes no fields.'), `${what}: ${body.error}`);
  }

  it('refuses a JSON body of only an unknown field with 400 BAD_REQUEST naming it and the allowed fields, on every /api/v1 operation that takes one', async () => {
    const withBody = operations.filter((o) => isApi(o) && jsonBody(o));
    assert.ok(withBody.length >= 10);
    for (const o of withBody) {
      const res = await t.call(o.method, concrete(o.path), { token: t.teamToken, json: { [UNKNOWN]: 1 } });
      const properties = jsonBody(o)?.schema?.properties;
      await assertUnknownRefused(res, `${o.method} ${o.path}`, 'body', properties && Object.keys(properties));
    }
  });

  it('refuses an unknown query parameter with 400 BAD_REQUEST naming it and the declared ones, on every /api/v1 GET that declares a query', async () => {
    const withQuery = operations.filter((o) => isApi(o) && o.method === 'GET' && queryNames(o).length > 0);
    assert.ok(withQuery.length >= 8);
    for (const o of withQuery) {
      const res = await t.call('GET', `${concrete(o.path)}?${UNKNOWN}=1`, { token: t.teamToken });
      await assertUnknownRefused(res, `GET ${o.path}?${UNKNOWN}=1`, 'query', queryNames(o));
    }
  });

  it('refuses any query parameter on a token-authorised /api/v1 operation that declares none; public ones ignore it', async () => {
    const closed = operations.filter((o) => isApi(o) && !isPublic(o) && queryNames(o).length === 0);
    assert.ok(closed.some((o) => o.method === 'POST'));
    for (const o of closed) {
      const res = await t.call(o.method, `${concrete(o.path)}?${UNKNOWN}=1`, { token: t.teamToken, ...(jsonBody(o) ? { json: {} } : {}) });
      await assertUnknownRefused(res, `${o.method} ${o.path}?${UNKNOWN}=1`, 'query', []);
    }
    for (const o of operations.filter((o) => isApi(o) && isPublic(o))) {
      assert.equal((await t.call(o.method, `${concrete(o.path)}?${UNKNOWN}=1`)).status, 200, `${o.method} ${o.path}`);
    }
  });

  it('answers an access token without scopes 403 FORBIDDEN on every token-authorised /api/v1 operation, with the insufficient_scope challenge naming the documented scope', async () => {
    const token = await as.token('no-scope-app', t.url, '');
    const guarded = operations.filter((o) => isApi(o) && !isPublic(o));
    assert.ok(guarded.length >= 20);
    for (const o of guarded) {
      const what = `${o.method} ${o.path}`;
      // A body that is not the route's shape: the scope is checked before the input is.
      const res = await t.call(o.method, concrete(o.path), { token, ...(jsonBody(o) ? { json: { [UNKNOWN]: 1 } } : {}) });
      const body = (await res.json()) as ErrorBody;
      assert.deepEqual([res.status, body.code], [403, 'FORBIDDEN'], `${what}: ${JSON.stringify(body)}`);
      const scope = scopeOf(o);
      const challenge = res.headers.get('www-authenticate') ?? '';
      if (scope === undefined) {
        // Documented as not callable with an access token at all (provisioning): no scope would help.
        assert.doesNotMatch(challenge, /insufficient_scope/, what);
        continue;
      }
      assert.ok(SCOPES.includes(scope), `${what} documents ${scope}`);
      assert.match(challenge, /^Bearer .*error="insufficient_scope"/, what);
      assert.ok(challenge.includes(`scope="${scope}"`), `${what}: ${challenge}`);
      assert.ok(body.error.includes(scope), `${what}: ${body.error}`);
    }
  });

  it('never lets an access token call /admin/api/*, whatever its scopes', async () => {
    const token = await as.token('all-scopes-app', t.url, SCOPES.join(' '));
    const admin = operations.filter((o) => o.path.startsWith('/admin/api/') && !isPublic(o));
    assert.ok(admin.length >= 10);
    for (const o of admin) {
      const res = await t.call(o.method, concrete(o.path), { token, ...(jsonBody(o) ? { json: {} } : {}) });
      assert.deepEqual([res.status, ((await res.json()) as ErrorBody).code], [403, 'FORBIDDEN'], `${o.method} ${o.path}`);
    }
  });

  for (const era of ['2025 session', '2026-07-28 stateless'] as const) {
    it(`MCP (${era}): every tool refuses an unknown argument as a tool error naming it and the tool's fields`, async () => {
      const { list, call, close } = await connectEra(era);
      try {
        const tools = await list();
        assert.ok(tools.length >= 13);
        for (const tool of tools) {
          const result = await call(tool.name, { [UNKNOWN]: 1 });
          const what = `${era} ${tool.name}`;
          assert.equal(result.isError, true, what);
          const body = result.body as unknown as ErrorBody;
          assert.equal(body.code, 'BAD_REQUEST', `${what}: ${JSON.stringify(body)}`);
          assert.ok(body.error.startsWith(`Unknown field ${UNKNOWN} in arguments; `), `${what}: ${body.error}`);
          const properties = tool.inputSchema.properties;
          if (properties) {
            const allowed = Object.keys(properties);
            assert.ok(body.error.endsWith(allowed.length > 0 ? `allowed: ${allowed.join(', ')}.` : 'it takes no fields.'), `${what}: ${body.error}`);
          }
        }
      } finally {
        await close();
      }
    });
  }

  /** A client of one MCP era with the team token, acting for the agent. */
  async function connectEra(era: '2025 session' | '2026-07-28 stateless'): Promise<{
    list(): Promise<{ name: string; inputSchema: { properties?: Record<string, unknown> } }[]>;
    call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: Record<string, unknown> }>;
    close(): Promise<void>;
  }> {
    if (era === '2025 session') {
      const mcp = await connectMcp(t.url, 'streamable', t.teamToken, AGENT);
      return { list: async () => (await mcp.client.listTools()).tools, call: (name, args) => mcp.call(name, args), close: () => mcp.close() };
    }
    const client = new ModernClient({ name: 'conformance-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernTransport(new URL(`${t.url}/mcp?agentId=${AGENT}`), { requestInit: { headers: { authorization: `Bearer ${t.teamToken}` } } }));
    return {
      list: async () => (await client.listTools()).tools,
      async call(name, args) {
        const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[] };
        return { isError: result.isError === true, body: JSON.parse(result.content[0]?.text ?? '{}') as Record<string, unknown> };
      },
      close: () => client.close(),
    };
  }
});
