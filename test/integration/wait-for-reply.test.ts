import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { eventually } from '@switchboard/runtime/testing';

const REVISION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

interface Entry {
  cursor: number;
  type: string;
  conversationId: string;
  counterpart: string;
  status: string | null;
  payload: Record<string, unknown>;
}
interface ReplyAnswer {
  agentId: string;
  conversationId: string;
  after: number;
  reply: Entry | null;
  cursor: number;
  timedOut: boolean;
}
/** Waits for a reply one principal may have at once, in this file's gateway. */
const CAP = 3;

interface RpcAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

describe('waiting for a reply: REST long poll, the MCP tool, and the tool as a task', () => {
  let t: TestGateway;
  let a: Awaited<ReturnType<typeof provisionAgent>>;
  let b: Awaited<ReturnType<typeof provisionAgent>>;
  let customers = 0;

  before(async () => {
    // The simulator outside the gateway, so a restart keeps it (a cluster's always does).
    // A low cap of waits per principal, so the cap's test reaches it; the other tests hold one wait at a time.
    t = await startTestGateway({ REPLY_WAITS_PER_PRINCIPAL: CAP }, undefined, { externalProviders: true });
    a = await provisionAgent(t, 'reply-a', ['sms']);
    b = await provisionAgent(t, 'reply-b', ['sms']);
  });
  after(() => t.close());

  /** A new counterpart the agent texts; answers its number and the conversation's id (from the send's inbox entry). */
  async function texted(agent = a): Promise<{ customer: string; conversationId: string }> {
    const customer = `+1415555${String(1000 + ++customers).padStart(4, '0')}`;
    const sent = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: customer, body: 'Are you free on Tuesday?' } });
    assert.equal(sent.status, 200, await sent.clone().text());
    const page = (await (await t.call('GET', '/api/v1/inbox?after=0&limit=500', { token: agent.securityToken })).json()) as { entries: Entry[] };
    const entry = page.entries.find((e) => e.counterpart === customer);
    assert.ok(entry, 'the send is in the inbox');
    return { customer, conversationId: entry.conversationId };
  }

  const replies = (agent: typeof a, customer: string, body: string) => t.sim.inbound.sms({ agentId: agent.agentId, from: customer, to: agent.channels.sms!.address, body });

  async function poll(conversationId: string, query = '', token = a.securityToken): Promise<ReplyAnswer> {
    const res = await t.call('GET', `/api/v1/conversations/${conversationId}/reply${query}`, { token });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as ReplyAnswer;
  }

  /** One stateless 2026-07-28 JSON-RPC request to /mcp; `tasks` declares the Tasks extension. */
  async function rpc(method: string, params: Record<string, unknown>, tasks = true, token = a.securityToken): Promise<RpcAnswer> {
    const name = (params.name ?? params.taskId) as string | undefined;
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': method,
        ...(name ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': REVISION,
            'io.modelcontextprotocol/clientInfo': { name: 'reply-test-client', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
          },
        },
      }),
    });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').startsWith('text/event-stream') ? text.split('\n').filter((l) => l.startsWith('data: ')).at(-1)!.slice(6) : text;
    return JSON.parse(json) as RpcAnswer;
  }

  async function settled(taskId: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const answer = await eventually(
      async () => {
        const answer = await rpc('tasks/get', { taskId });
        return (answer.error !== undefined || answer.result!.status !== 'working') && answer;
      },
      { timeoutMs, intervalMs: 100, message: `task ${taskId} to stop working` },
    );
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    return answer.result!;
  }

  it('a reply that came between the send and the wait is answered at once: the default cursor is the latest send', async () => {
    const { customer, conversationId } = await texted();
    assert.equal((await replies(a, customer, 'Yes, Tuesday works.')).status, 200);
    const answer = await poll(conversationId);
    assert.equal(answer.reply?.payload.body, 'Yes, Tuesday works.');
    assert.equal(answer.reply?.type, 'message.received');
    assert.equal(answer.timedOut, false);
    assert.equal(answer.cursor, answer.reply?.cursor);
    // After that reply, the next wait starts past it only when told (or once the agent sends or acknowledges again).
    const next = await poll(conversationId, `?after=${answer.cursor}`);
    assert.equal(next.reply, null);
    assert.equal(next.timedOut, true);
    await t.call('POST', '/api/v1/send-message', { token: a.securityToken, json: { channel: 'sms', to: customer, body: 'Great, see you.' } });
    assert.equal((await poll(conversationId)).reply, null, 'a new send moves the default cursor past the earlier reply');
  });

  it("the long poll answers within a second of the reply's webhook", async () => {
    const { customer, conversationId } = await texted();
    const waiting = poll(conversationId, '?wait=25');
    await new Promise((r) => setTimeout(r, 500));
    const sent = await replies(a, customer, 'Sure!');
    assert.equal(sent.status, 200);
    const acknowledged = Date.now();
    const answer = await waiting;
    const ms = Date.now() - acknowledged;
    console.log(`# long poll answered ${ms} ms after the webhook's 200`);
    assert.equal(answer.reply?.payload.body, 'Sure!');
    assert.ok(ms < 5000, `answered ${ms} ms after the webhook (expected about a second at most; generous on a loaded machine)`);
  });

  it('a wait that times out answers the cursor; waiting again with it gets the reply', async () => {
    const { customer, conversationId } = await texted();
    const started = Date.now();
    const first = await poll(conversationId, '?wait=1');
    assert.ok(Date.now() - started >= 900, 'it waited');
    assert.deepEqual([first.reply, first.timedOut], [null, true]);
    assert.ok(first.cursor >= first.after);
    assert.equal((await replies(a, customer, 'Sorry, was out.')).status, 200);
    const second = await poll(conversationId, `?after=${first.cursor}&wait=5`);
    assert.equal(second.reply?.payload.body, 'Sorry, was out.');
    assert.equal(second.after, first.cursor);
  });

  it("another agent's conversation is not found; a client token may not name another agent", async () => {
    const { conversationId } = await texted();
    const other = await t.call('GET', `/api/v1/conversations/${conversationId}/reply`, { token: b.securityToken });
    assert.equal(other.status, 404);
    assert.equal(((await other.json()) as { code: string }).code, 'NOT_FOUND');
    const named = await t.call('GET', `/api/v1/conversations/${conversationId}/reply?agentId=reply-a`, { token: b.securityToken });
    assert.equal(named.status, 403);
    const team = await t.call('GET', `/api/v1/conversations/${conversationId}/reply?agentId=reply-a`, { token: t.teamToken });
    assert.equal(team.status, 200, 'a team token names the agent');
    const teamless = await t.call('GET', `/api/v1/conversations/${conversationId}/reply`, { token: t.teamToken });
    assert.equal(teamless.status, 400);
  });

  it('bad input gets the contract error: wait over 25, a malformed conversation id, a cursor past the inbox, an unknown parameter', async () => {
    const { conversationId } = await texted();
    for (const [path, code] of [
      [`/api/v1/conversations/${conversationId}/reply?wait=26`, 'VALIDATION_FAILED'],
      [`/api/v1/conversations/${conversationId}/reply?wait=abc`, 'VALIDATION_FAILED'],
      ['/api/v1/conversations/not-a-conversation/reply', 'VALIDATION_FAILED'],
      [`/api/v1/conversations/${conversationId}/reply?after=99999`, 'VALIDATION_FAILED'],
      [`/api/v1/conversations/${conversationId}/reply?timeout=5`, 'BAD_REQUEST'],
    ] as const) {
      const res = await t.call('GET', path, { token: a.securityToken });
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.code, code, path);
      assert.equal(typeof body.error, 'string');
    }
    const tool = await rpc('tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId, timeoutSeconds: 86_401 } });
    assert.equal(tool.result?.isError, true);
    assert.equal((tool.result?.structuredContent as { code: string }).code, 'VALIDATION_FAILED');
    const malformed = await rpc('tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId: 'nope', timeoutSeconds: 10 } });
    assert.equal((malformed.result?.structuredContent as { code: string }).code, 'VALIDATION_FAILED');
  });

  it('a gateway shutting down ends a long poll at once with its cursor, not after 25 s', async () => {
    const { conversationId } = await texted();
    const started = Date.now();
    const waiting = t.call('GET', `/api/v1/conversations/${conversationId}/reply?wait=25`, { token: a.securityToken });
    await new Promise((r) => setTimeout(r, 500));
    await t.restart();
    const res = await waiting;
    const ms = Date.now() - started;
    assert.equal(res.status, 200);
    const answer = (await res.json()) as ReplyAnswer;
    assert.deepEqual([answer.reply, answer.timedOut], [null, true]);
    assert.ok(ms < 20_000, `the wait ended with the shutdown (${ms} ms), not at its 25 s`);
  });

  it('the tool for a client without tasks: a bounded wait that answers the reply, or a cursor to call again', async () => {
    const { customer, conversationId } = await texted();
    const listed = await rpc('tools/list', {}, false);
    const tool = (listed.result!.tools as { name: string; inputSchema: { properties: Record<string, { maximum?: number }>; required?: string[] } }[]).find((x) => x.name === 'comms_wait_for_reply');
    assert.ok(tool, 'the tool is listed');
    assert.equal(tool.inputSchema.properties.timeoutSeconds!.maximum, 86_400);
    assert.deepEqual([...(tool.inputSchema.required ?? [])].sort(), ['conversationId', 'timeoutSeconds']);

    const started = Date.now();
    const none = await rpc('tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId, timeoutSeconds: 1 } }, false);
    assert.equal(none.result!.resultType === 'task', false, 'no task without the extension');
    const empty = none.result!.structuredContent as ReplyAnswer;
    assert.deepEqual([empty.reply, empty.timedOut], [null, true]);
    assert.ok(Date.now() - started < 20_000);

    const legacy = await connectMcp(t.url, 'streamable', a.securityToken, 'reply-a');
    try {
      const waiting = legacy.call('comms_wait_for_reply', { conversationId, after: empty.cursor, timeoutSeconds: 3600 });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await replies(a, customer, 'Over MCP.')).status, 200);
      const { isError, body } = await waiting;
      assert.equal(isError, false);
      assert.equal((body as unknown as ReplyAnswer).reply?.payload.body, 'Over MCP.', 'a 2025 session waits (at most 25 s) and gets the reply');
    } finally {
      await legacy.close();
    }
  });

  it('as a task: completes with the reply, survives a gateway restart, times out with a cursor, and is cancelled', async () => {
    const { customer, conversationId } = await texted();
    const created = await rpc('tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId, timeoutSeconds: 600 } });
    assert.equal(created.error, undefined, JSON.stringify(created.error));
    assert.equal(created.result!.resultType, 'task');
    assert.equal(created.result!.status, 'working');
    const taskId = String(created.result!.taskId);
    assert.equal((await rpc('tasks/get', { taskId })).result!.status, 'working');
    await t.restart();
    assert.equal((await rpc('tasks/get', { taskId })).result!.status, 'working', 'still waiting after the restart');
    assert.equal((await replies(a, customer, 'After the restart.')).status, 200);
    const acknowledged = Date.now();
    const done = await settled(taskId);
    console.log(`# task completed (seen by a 100 ms poll) ${Date.now() - acknowledged} ms after the webhook's 200`);
    assert.equal(done.status, 'completed');
    const result = done.result as { structuredContent: ReplyAnswer; isError?: boolean };
    assert.equal(result.structuredContent.reply?.payload.body, 'After the restart.');
    assert.equal(result.structuredContent.timedOut, false);
    assert.equal(result.isError, undefined);
    assert.equal((await rpc('tasks/get', { taskId }, true, b.securityToken)).error?.code, -32602, "another agent's task is not found");

    const short = await rpc('tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId, after: result.structuredContent.cursor, timeoutSeconds: 1 } });
    const timedOut = await settled(String(short.result!.taskId));
    const outcome = (timedOut.result as { structuredContent: ReplyAnswer }).structuredContent;
    assert.deepEqual([outcome.reply, outcome.timedOut], [null, true]);
    assert.ok(outcome.cursor >= result.structuredContent.cursor);

    const cancelled = await rpc('tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId, after: outcome.cursor, timeoutSeconds: 600 } });
    const cancelId = String(cancelled.result!.taskId);
    assert.equal((await rpc('tasks/cancel', { taskId: cancelId })).error, undefined);
    assert.equal((await rpc('tasks/get', { taskId: cancelId })).result!.status, 'cancelled');
    assert.equal((await replies(a, customer, 'Too late.')).status, 200);
    assert.equal((await rpc('tasks/get', { taskId: cancelId })).result!.status, 'cancelled', 'a reply after the cancel does not complete it');
  });
  it(`a principal has at most REPLY_WAITS_PER_PRINCIPAL (${CAP}) waits: REST long polls, MCP waits and reply tasks together; one more is 429 with Retry-After`, async () => {
    const { customer, conversationId } = await texted();
    const longPoll = (wait: number, token = a.securityToken) => t.call('GET', `/api/v1/conversations/${conversationId}/reply?wait=${wait}`, { token });

    // One more than the cap at once: the last to arrive is refused at once, the others wait for the reply.
    const polls = Array.from({ length: CAP + 1 }, () => longPoll(25));
    const first = await Promise.race(polls);
    assert.equal(first.status, 429, await first.clone().text());
    assert.ok(Number(first.headers.get('retry-after')) >= 1, `Retry-After: ${first.headers.get('retry-after')}`);
    const refusal = (await first.json()) as { code: string; error: string };
    assert.equal(refusal.code, 'RATE_LIMITED');
    assert.match(refusal.error, /REPLY_WAITS_PER_PRINCIPAL/);
    assert.equal((await replies(a, customer, 'One reply for every wait.')).status, 200);
    const statuses = (await Promise.all(polls)).map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array.from({ length: CAP }, () => 200), 429]);

    // Reply tasks still waiting count too, on any gateway (they are stored): at the cap, every kind of wait is refused.
    const { cursor } = await poll(conversationId, '?wait=0');
    const taskIds: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const created = await rpc('tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId, after: cursor, timeoutSeconds: 3600 } });
      assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
      taskIds.push(String(created.result!.taskId));
    }
    const rest = await longPoll(2);
    assert.equal(rest.status, 429, await rest.clone().text());
    assert.equal(((await rest.json()) as { code: string }).code, 'RATE_LIMITED');
    assert.ok(Number(rest.headers.get('retry-after')) > 60, 'the soonest end is a task an hour away');
    for (const tasks of [true, false]) {
      const tool = await rpc('tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId, after: cursor, timeoutSeconds: 2 } }, tasks);
      assert.equal(tool.result?.isError, true, JSON.stringify(tool));
      assert.equal(tool.result?.resultType === 'task', false);
      assert.equal((tool.result!.structuredContent as { code: string }).code, 'RATE_LIMITED', `as a task: ${tasks}`);
    }
    assert.equal((await poll(conversationId, `?wait=0&after=${cursor}`)).timedOut, true, 'a look that does not wait is not counted');
    const { conversationId: othersConversation } = await texted(b);
    assert.equal((await poll(othersConversation, '?wait=1', b.securityToken)).timedOut, true, "another agent's waits are its own");

    // A cancelled task frees its place.
    assert.equal((await rpc('tasks/cancel', { taskId: taskIds.pop()! })).error, undefined);
    assert.equal((await poll(conversationId, `?wait=1&after=${cursor}`)).timedOut, true);
    for (const taskId of taskIds) assert.equal((await rpc('tasks/cancel', { taskId })).error, undefined);
  });
});
