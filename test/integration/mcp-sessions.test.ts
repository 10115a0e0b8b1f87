import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectMcp, type ConnectedClient } from '../helpers/mcp-client.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550123';
const CAP = 3;
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};
const STREAMABLE_ACCEPT = 'application/json, text/event-stream';

/** Resolves as `promise` does, or fails after `ms`. */
async function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}.`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A Streamable HTTP session opened with a bare initialize request: no GET stream, no further requests. */
async function initializeOnly(url: string, token: string, agentId?: string): Promise<string> {
  const res = await fetch(`${url}/mcp${agentId ? `?agentId=${agentId}` : ''}`, {
    method: 'POST',
    headers: { accept: STREAMABLE_ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(INITIALIZE),
  });
  await res.text();
  assert.equal(res.status, 200);
  return res.headers.get('mcp-session-id')!;
}

/** A `ping` on a Streamable HTTP session by id: its HTTP status and, for a refusal, the error code. */
async function pingStreamable(url: string, token: string, sessionId: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { accept: STREAMABLE_ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${token}`, 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  const text = await res.text();
  return { status: res.status, code: res.status === 200 ? undefined : (JSON.parse(text) as { code: string }).code };
}

/** A raw `GET /sse` stream that is never initialized: the legacy transport's idle stream. */
interface RawSse {
  readonly sessionId: string;
  /** Resolves, once the stream is over, with whether the server ended it cleanly and what came after the endpoint event. */
  readonly ended: Promise<{ clean: boolean; text: string }>;
  post(body: unknown): Promise<Response>;
  close(): void;
}

async function openRawSse(url: string, token: string, headers: Record<string, string> = {}): Promise<RawSse> {
  const controller = new AbortController();
  const res = await fetch(`${url}/sse?token=${token}`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!/sessionId=([0-9a-f-]{36})/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the /sse stream ended before its endpoint event');
    text += decoder.decode(value, { stream: true });
  }
  const sessionId = /sessionId=([0-9a-f-]{36})/.exec(text)![1]!;
  const ended = (async () => {
    let rest = '';
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value, { stream: true });
      return { clean: true, text: rest };
    } catch {
      return { clean: false, text: rest };
    }
  })();
  return {
    sessionId,
    ended,
    post: (body) =>
      fetch(`${url}/messages?sessionId=${sessionId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
    close: () => controller.abort(),
  };
}

/** The value of one line of the metrics text, or undefined when absent. */
async function metric(t: TestGateway, series: string): Promise<number | undefined> {
  const text = await (await t.call('GET', '/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Ends an official client's session: a Streamable HTTP client deletes it (close alone leaves it to expire). */
async function end(client: ConnectedClient): Promise<void> {
  const transport = client.client.transport;
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
  await client.close().catch(() => undefined);
}

/** The status code an official client's failed request carried (StreamableHTTPError and SseError have `code`). */
const failedWith = (status: number) => (err: unknown) => (err as { code?: unknown }).code === status;

describe(`MCP sessions per principal (cap ${CAP})`, () => {
  let t: TestGateway;
  let alpha: Awaited<ReturnType<typeof provisionAgent>>;
  let beta: Awaited<ReturnType<typeof provisionAgent>>;
  const clients: ConnectedClient[] = [];
  const raws: RawSse[] = [];
  before(async () => {
    t = await startTestGateway({ MCP_MAX_SESSIONS_PER_PRINCIPAL: CAP, AUTH_LOCKOUT_ATTEMPTS: 1000 });
    alpha = await provisionAgent(t, 'cap-alpha', ['sms']);
    beta = await provisionAgent(t, 'cap-beta', ['sms']);
  });
  after(async () => {
    for (const raw of raws) raw.close();
    await Promise.all(clients.map(end));
    await t.close();
  });
  const connect = async (...args: Parameters<typeof connectMcp>) => {
    const client = await connectMcp(...args);
    clients.push(client);
    return client;
  };
  const held = () => t.gateway.mcp.census();

  it('one Streamable HTTP session more than the cap evicts the longest idle: its next request is 404, the newest work, another principal is untouched', async () => {
    const other = await connect(t.url, 'streamable', beta.securityToken);
    const team: ConnectedClient[] = [];
    for (let i = 0; i < CAP; i++) team.push(await connect(t.url, 'streamable', t.teamToken));
    // Every client has its GET stream open: all are connected listeners, so the one least recently active goes.
    await eventually(() => t.gateway.mcp.count === CAP + 1, { message: 'the GET streams' });
    for (const client of team.slice(1)) assert.equal((await client.call('comms_ping')).isError, false);
    const newest = await connect(t.url, 'streamable', t.teamToken);
    await assert.rejects(team[0]!.call('comms_ping'), failedWith(404), 'the evicted session is gone: 404');
    for (const client of [...team.slice(1), newest]) assert.equal((await client.call('comms_ping')).body.principal, 'team');
    assert.equal((await other.call('comms_ping')).body.agentId, 'cap-beta', 'another principal keeps its session');
    assert.equal(held().sessions['streamable-http'], CAP + 1);
    await Promise.all([...team.slice(1), newest, other].map(end));
    await eventually(() => held().sessions['streamable-http'] === 0, { message: 'the sessions to close' });
  });

  it('sessions without a stream go before a connected listener, and the agent\'s deliveries reach its newest session', async () => {
    const listener = await connect(t.url, 'streamable', alpha.securityToken, 'cap-alpha');
    await eventually(() => t.gateway.mcp.sessionFor('cap-alpha') !== undefined, { message: 'the listener to go live' });
    const bare: string[] = [];
    for (let i = 0; i < CAP; i++) bare.push(await initializeOnly(t.url, alpha.securityToken));
    // Cap 3 held the listener and two bare sessions; the third bare one evicted the first, not the listener.
    assert.deepEqual(await pingStreamable(t.url, alpha.securityToken, bare[0]!), { status: 404, code: 'NOT_FOUND' });
    assert.equal((await pingStreamable(t.url, alpha.securityToken, bare[2]!)).status, 200);
    await t.sim.inbound.sms({ agentId: 'cap-alpha', from: CUSTOMER, to: alpha.channels.sms!.address, body: 'to the listener' });
    assert.equal((await listener.next('switchboard.inbound', (d) => d.body === 'to the listener', 10_000)).body, 'to the listener');

    // A newer session over the legacy transport evicts another bare session, then replaces the listener.
    const newest = await connect(t.url, 'sse', alpha.securityToken, 'cap-alpha');
    await eventually(() => t.gateway.mcp.sessionFor('cap-alpha')?.kind === 'sse', { message: 'the newest session to take over' });
    assert.equal((await pingStreamable(t.url, alpha.securityToken, bare[1]!)).status, 404);
    await t.sim.inbound.sms({ agentId: 'cap-alpha', from: CUSTOMER, to: alpha.channels.sms!.address, body: 'to the newest' });
    assert.equal((await newest.next('switchboard.inbound', (d) => d.body === 'to the newest', 10_000)).body, 'to the newest');
    await newest.close();
    assert.equal((await fetch(`${t.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${alpha.securityToken}`, 'mcp-session-id': bare[2]! } })).status, 200);
    await eventually(() => held().sessions.sse + held().sessions['streamable-http'] === 0, { message: 'the sessions to close' });
  });

  it('one /sse stream more than the cap closes the oldest idle stream cleanly, with a long retry; its messages are 404, the newest work', async () => {
    const other = await connect(t.url, 'sse', beta.securityToken);
    const streams: RawSse[] = [];
    for (let i = 0; i <= CAP; i++) {
      const raw = await openRawSse(t.url, alpha.securityToken);
      raws.push(raw);
      streams.push(raw);
    }
    const [oldest, ...rest] = streams;
    const { clean, text } = await within(oldest!.ended, 'the oldest stream to end');
    assert.equal(clean, true, 'the oldest stream ends cleanly');
    // EventSource reconnects by itself after a stream ends; the SDK's client sends no Last-Event-ID, so the
    // gateway could not tell that reconnect from a new client: it asks for a day's delay instead.
    assert.match(text, /^retry: 86400000$/m);
    const posted = await oldest!.post(INITIALIZE);
    assert.equal(posted.status, 404);
    assert.equal(((await posted.json()) as { code: string }).code, 'NOT_FOUND');
    for (const raw of rest) assert.equal((await raw.post(INITIALIZE)).status, 202);
    assert.equal(held().sessions.sse, CAP + 1, 'the newest three of alpha and the one of beta');
    assert.equal((await other.call('comms_ping')).body.agentId, 'cap-beta', 'another principal keeps its session');

    // The official client, evicted, sees its stream end and its next request fail.
    const official: ConnectedClient[] = [];
    const errors: unknown[] = [];
    for (let i = 0; i < CAP; i++) official.push(await connect(t.url, 'sse', t.teamToken));
    official[0]!.client.onerror = (err) => errors.push(err);
    for (const client of official.slice(1)) assert.equal((await client.call('comms_ping')).isError, false);
    official.push(await connect(t.url, 'sse', t.teamToken));
    await eventually(() => errors.length > 0, { message: 'the evicted client to see its stream end' });
    await assert.rejects(official[0]!.call('comms_ping'));
    for (const client of official.slice(1)) assert.equal((await client.call('comms_ping')).isError, false);
    assert.equal(held().sessions.sse, 2 * CAP + 1, 'alpha\'s newest three, beta\'s one and the team\'s newest three');
    for (const raw of raws) raw.close();
    await Promise.all([other, ...official].map((c) => c.close().catch(() => undefined)));
    await eventually(() => held().sessions.sse === 0, { message: 'the streams to close' });
  });

  it('switchboard_sse_sessions counts every open stream, switchboard_mcp_sessions every session; both go back down', async () => {
    await eventually(async () => (await metric(t, 'switchboard_sse_sessions')) === 0, { message: 'no stream open' });
    const raw = await openRawSse(t.url, beta.securityToken);
    raws.push(raw);
    const sse = await connect(t.url, 'sse', t.teamToken);
    const streamable = await connect(t.url, 'streamable', t.teamToken);
    const bare = await initializeOnly(t.url, t.teamToken);
    const expect = async (streams: number, sse: number, streamable: number) => {
      await eventually(
        async () =>
          (await metric(t, 'switchboard_sse_sessions')) === streams &&
          (await metric(t, 'switchboard_mcp_sessions{transport="sse"}')) === sse &&
          (await metric(t, 'switchboard_mcp_sessions{transport="streamable-http"}')) === streamable,
        { message: `${streams} streams, ${sse} sse and ${streamable} streamable-http sessions in the metrics` },
      );
    };
    // The uninitialized /sse stream, the official SSE client's stream and the Streamable client's GET stream.
    await expect(3, 2, 2);
    raw.close();
    await sse.close();
    await expect(1, 0, 2);
    await end(streamable);
    assert.equal((await fetch(`${t.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${t.teamToken}`, 'mcp-session-id': bare } })).status, 200);
    await expect(0, 0, 0);
  });
});

describe('MCP idle sessions expire', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway({ MCP_SESSION_IDLE_SECONDS: 1 });
  });
  after(async () => {
    await t.close();
  });

  it('a session with no stream and no request expires after the idle time; connected listeners do not', async () => {
    // The listeners open first, so they have been idle longer than the bare session when it expires.
    const streamable = await connectMcp(t.url, 'streamable', t.teamToken);
    const sse = await connectMcp(t.url, 'sse', t.teamToken);
    try {
      await eventually(() => t.gateway.mcp.count === 2, { message: 'both streams' });
      const bare = await initializeOnly(t.url, t.teamToken);
      const unused = await openRawSse(t.url, t.teamToken);
      assert.ok(t.gateway.mcp.get(bare));
      await eventually(() => t.gateway.mcp.get(bare) === undefined, { message: 'the bare session to expire' });
      assert.deepEqual(await pingStreamable(t.url, t.teamToken, bare), { status: 404, code: 'NOT_FOUND' });
      assert.equal((await within(unused.ended, 'the unused stream to end')).clean, true, 'a /sse stream never initialized expires too, cleanly');
      assert.equal((await streamable.call('comms_ping')).isError, false, 'the Streamable listener is kept');
      assert.equal((await sse.call('comms_ping')).isError, false, 'the SSE listener is kept');
    } finally {
      await streamable.close();
      await sse.close();
    }
  });
});
