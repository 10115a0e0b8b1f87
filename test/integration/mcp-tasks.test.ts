import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startAuthorizationServer, type TestAuthorizationServer } from '../helpers/authorization-server.js';
import { startCallAnswerer, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const REVISION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/** The per-request envelope of a 2026-07-28 client; `tasks` declares the Tasks extension. */
function meta(tasks: boolean): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': REVISION,
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-test-client', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
  };
}

/** One stateless JSON-RPC POST to /mcp of `url` with `token`, the extension declared (Mcp-Name: the tool, or the task's id). */
async function rpcAt(url: string, token: string, method: string, params: Record<string, unknown>, tasks = true): Promise<RpcAnswer> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta(tasks) } }),
  });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text.split('\n').filter((line) => line.startsWith('data: ')).at(-1)!.slice(6)
    : text;
  const body = JSON.parse(json) as { result?: Record<string, unknown>; error?: RpcAnswer['error'] };
  return { status: response.status, ...body };
}

interface RpcAnswer {
  readonly status: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

interface DetailedTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  resultType: string;
  result?: { content: { type: string; text: string }[]; structuredContent: Outcome; isError?: boolean };
  error?: { code: number; message: string };
}

interface Outcome {
  callId: string;
  answered: boolean;
  status: string;
  durationSeconds: number;
  cost: number | null;
  summary: { turns: number; durationSeconds: number } | null;
  transcript: { role: string; text: string }[];
}

describe(`MCP ${REVISION}: calls placed as tasks (the ${TASKS} extension)`, () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let other: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;

  /** One stateless JSON-RPC POST to /mcp, with the standard headers (Mcp-Name: the tool, or the task's id). */
  function rpc(method: string, params: Record<string, unknown>, options: { token?: string; tasks?: boolean } = {}): Promise<RpcAnswer> {
    return rpcAt(t.url, options.token ?? agent.securityToken, method, params, options.tasks ?? true);
  }

  /** Places a call through a tool with the extension declared; answers the CreateTaskResult. */
  async function callAsTask(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = await rpc('tools/call', { name: tool, arguments: args });
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    return answer.result!;
  }

  async function getTask(taskId: string, token?: string): Promise<DetailedTask> {
    const answer = await rpc('tasks/get', { taskId }, token ? { token } : {});
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    return answer.result as unknown as DetailedTask;
  }

  /** Polls tasks/get until the task is terminal. */
  async function settled(taskId: string, timeoutMs = 30_000): Promise<DetailedTask> {
    let task: DetailedTask | undefined;
    return eventually(
      async () => {
        task = await getTask(taskId);
        return ['completed', 'failed', 'cancelled'].includes(task.status) && task;
      },
      { timeoutMs, intervalMs: 200, message: () => `task ${taskId} to end (still ${task?.status}: ${task?.statusMessage})` },
    );
  }

  /** The newest call of the agent (a task does not name its call until it is over). */
  async function newestCall(): Promise<{ callId: string; status: string }> {
    const res = await t.call('GET', '/api/v1/calls?limit=1', { token: agent.securityToken });
    const body = (await res.json()) as { calls: { callId: string; status: string }[] };
    return body.calls[0]!;
  }

  before(async () => {
    // The simulator runs beside the gateway (not inside it, as in demo mode), so calls go on across a restart.
    t = await startTestGateway({ VOICE_MODE: 'relay' }, undefined, { externalProviders: true });
    agent = await provisionAgent(t, 'tasks-agent', ['voice'], { greeting: 'Hello from the tasks agent.' });
    other = await provisionAgent(t, 'tasks-other', ['voice']);
    receiver = await startCallAnswerer(
      (callbackUrl) => t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl } }),
      (said) => (said.includes('bye') ? { text: 'Goodbye!', end: true } : { text: `You said: ${said}` }),
    );
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('server/discover advertises the extension under capabilities.extensions (not a tasks capability)', async () => {
    const answer = await rpc('server/discover', {});
    const capabilities = answer.result!.capabilities as Record<string, unknown>;
    assert.deepEqual((capabilities.extensions as Record<string, unknown>)[TASKS], {});
    assert.equal(capabilities.tasks, undefined);
  });

  it('make-call answers a task at once; tasks/get follows the call to its outcome: answered, transcript, summary, duration, cost', async () => {
    t.sim.phone.onOutbound('+14155550801', { steps: ['What time is it?', 'Thanks, bye'], stayOnLine: true });
    const created = await callAsTask('comms_make_call', { to: '+14155550801' });
    assert.equal(created.resultType, 'task');
    assert.equal(typeof created.taskId, 'string');
    assert.equal(created.status, 'working');
    assert.match(String(created.createdAt), ISO);
    assert.match(String(created.lastUpdatedAt), ISO);
    assert.ok(Number.isInteger(created.ttlMs) && (created.ttlMs as number) > 0);
    assert.ok(Number.isInteger(created.pollIntervalMs) && (created.pollIntervalMs as number) > 0);
    for (const field of ['task', 'result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval']) assert.ok(!(field in created), `no ${field} on a CreateTaskResult`);

    const taskId = String(created.taskId);
    const first = await getTask(taskId);
    assert.equal(first.resultType, 'complete');
    assert.equal(first.taskId, taskId, 'stored before the answer: tasks/get resolves at once');

    const done = await settled(taskId);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.error, undefined);
    const outcome = done.result!.structuredContent;
    assert.equal(done.result!.isError, undefined, 'an answered call is no tool error');
    assert.deepEqual(JSON.parse(done.result!.content[0]!.text), outcome);
    assert.equal(outcome.answered, true);
    assert.equal(outcome.status, 'completed');
    assert.ok(outcome.durationSeconds >= 0);
    assert.equal(outcome.summary!.turns, 2);
    assert.deepEqual(
      outcome.transcript.filter((line) => line.role === 'caller').map((line) => line.text),
      ['What time is it?', 'Thanks, bye'],
    );
    assert.equal(outcome.transcript.find((line) => line.role === 'agent')!.text, 'Hello from the tasks agent.');
    const call = (await (await t.call('GET', `/api/v1/calls/${outcome.callId}`, { token: agent.securityToken })).json()) as { cost: number | null; durationSeconds: number };
    assert.deepEqual([outcome.cost, outcome.durationSeconds], [call.cost, call.durationSeconds], 'the outcome is the call log');
  });

  it('a task survives a gateway restart mid-call: after it, tasks/get answers the outcome of the call (not answered)', async () => {
    t.sim.phone.onOutbound('+14155550802', { answer: 'no-answer', ringMs: 5000 });
    const created = await callAsTask('comms_make_call', { to: '+14155550802' });
    const taskId = String(created.taskId);
    assert.equal((await getTask(taskId)).status, 'working');
    await t.restart();
    const done = await settled(taskId);
    assert.equal(done.status, 'completed', 'a call not answered is an outcome, not a protocol failure');
    assert.equal(done.result!.isError, true);
    assert.equal(done.result!.structuredContent.answered, false);
    assert.equal(done.result!.structuredContent.status, 'no-answer');
    assert.equal(done.createdAt, created.createdAt);
  });

  it('tasks/cancel hangs the call up and acknowledges with an empty result; the task ends cancelled, and a second cancel is the same ack', async () => {
    t.sim.phone.onOutbound('+14155550803', { steps: ['Hello?'], stayOnLine: true, maxDurationMs: 60_000 });
    const created = await callAsTask('comms_call_on_behalf', { target: '+14155550803', requesterPhone: '+14155550804', message: 'Lunch at one?' });
    const taskId = String(created.taskId);
    await eventually(async () => (await getTask(taskId)).statusMessage === 'The call is in-progress.', { timeoutMs: 15_000, intervalMs: 100, message: 'the call answered' });
    const callId = (await newestCall()).callId;
    const ack = await rpc('tasks/cancel', { taskId });
    assert.deepEqual(Object.keys(ack.result!).filter((k) => k !== '_meta'), ['resultType']);
    assert.equal(ack.result!.resultType, 'complete');
    const recording = await t.sim.phone.get(callId)!.done;
    assert.equal(recording.endedBy, 'api', 'the call was ended through the provider API (the hang-up), not by the phone');
    const cancelled = await getTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.result, undefined);
    const again = await rpc('tasks/cancel', { taskId });
    assert.equal(again.result!.resultType, 'complete', 'cancel is idempotent');
    assert.equal((await getTask(taskId)).status, 'cancelled');
  });

  it("another agent's task is not found; an unknown task id is -32602; tasks/update acknowledges; removed v1 methods are -32601", async () => {
    t.sim.phone.onOutbound('+14155550805', { answer: 'busy' });
    const taskId = String((await callAsTask('comms_make_call', { to: '+14155550805' })).taskId);
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const foreign = await rpc(method, { taskId, ...(method === 'tasks/update' ? { inputResponses: {} } : {}) }, { token: other.securityToken });
      assert.equal(foreign.error?.code, -32602, `${method}: ${JSON.stringify(foreign)}`);
      assert.match(foreign.error!.message, /not found/);
    }
    assert.equal((await rpc('tasks/get', { taskId: 'no-such-task' })).error?.code, -32602);
    const update = await rpc('tasks/update', { taskId, inputResponses: { unknown: { action: 'accept' } } });
    assert.equal(update.result?.resultType, 'complete', JSON.stringify(update));
    for (const method of ['tasks/list', 'tasks/result']) assert.equal((await rpc(method, method === 'tasks/list' ? {} : { taskId })).error?.code, -32601, method);
    const done = await settled(taskId);
    assert.deepEqual([done.status, done.result!.structuredContent.status, done.result!.isError], ['completed', 'busy', true]);
  });

  it('a request without the extension: tasks/* are refused with -32021 naming it, and a call tool answers its plain result', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const refused = await rpc(method, { taskId: 'gate-test', ...(method === 'tasks/update' ? { inputResponses: {} } : {}) }, { tasks: false });
      assert.equal(refused.error?.code, -32021, `${method}: ${JSON.stringify(refused)}`);
      assert.deepEqual(refused.error!.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    }
    t.sim.phone.onOutbound('+14155550806', { answer: 'busy' });
    const plain = await rpc('tools/call', { name: 'comms_make_call', arguments: { to: '+14155550806' } }, { tasks: false });
    assert.equal(plain.result!.resultType, 'complete');
    assert.equal(plain.result!.taskId, undefined);
    assert.equal((plain.result!.structuredContent as { success: boolean }).success, true);

    // The official v2 client, which declares no extension: today's answer, unchanged.
    const client = new Client({ name: 'tasks-plain-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: REVISION } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.securityToken}` } } }));
    try {
      t.sim.phone.onOutbound('+14155550807', { answer: 'busy' });
      const result = await client.callTool({ name: 'comms_make_call', arguments: { to: '+14155550807' } });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      const body = result.structuredContent as { success: boolean; callSid: string; status: string };
      assert.equal(body.success, true);
      assert.match(body.callSid, /^CA/);
      assert.equal((result as { taskId?: unknown }).taskId, undefined);
    } finally {
      await client.close();
    }
  });

  it('a tool call that fails places no call and gets no task: its error result comes back as it is', async () => {
    const answer = await rpc('tools/call', { name: 'comms_make_call', arguments: { to: 'not-a-number' } });
    assert.equal(answer.result!.resultType, 'complete');
    assert.equal(answer.result!.isError, true);
    assert.equal(answer.result!.taskId, undefined);
  });
});

describe('MCP tasks and OAuth access tokens: a task is its token\'s, and each operation needs its scope', () => {
  const AGENT = 'tasks-oauth-agent';
  const CUSTOMER = '+14155550821';
  let as: TestAuthorizationServer;
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;

  before(async () => {
    as = await startAuthorizationServer(
      [
        { clientId: 'owner-app', agentId: AGENT, scope: 'switchboard:send switchboard:send:sms switchboard:call switchboard:read' },
        { clientId: 'sibling-app', agentId: AGENT, scope: 'switchboard:send switchboard:call switchboard:read' },
        { clientId: 'sms-app', agentId: AGENT, scope: 'switchboard:send:sms' },
      ],
      ['switchboard:send', 'switchboard:send:sms', 'switchboard:call', 'switchboard:read'],
    );
    t = await startTestGateway({ OAUTH_AUTHORIZATION_SERVERS: as.issuer, AUTH_LOCKOUT_ATTEMPTS: 1000 }, undefined, { externalProviders: true });
    agent = await provisionAgent(t, AGENT, ['sms', 'voice']);
  });
  after(async () => {
    await t?.close();
    await as?.close();
  });

  const mcpToken = (client: string, scope: string) => as.token(client, `${t.url}/mcp`, scope);

  it("another token of the agent (another client, or a narrower token with no read or call scope) neither reads a reply task nor cancels a call task", async () => {
    const owner = await mcpToken('owner-app', 'switchboard:send switchboard:call switchboard:read');
    const sibling = await mcpToken('sibling-app', 'switchboard:send switchboard:call switchboard:read');
    const smsOnly = await mcpToken('sms-app', 'switchboard:send:sms');
    const ownerSmsOnly = await mcpToken('owner-app', 'switchboard:send:sms');

    // A reply task, completed with the counterpart's text.
    const sent = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: CUSTOMER, body: 'Dinner at eight?' } });
    assert.equal(sent.status, 200, await sent.clone().text());
    const page = (await (await t.call('GET', '/api/v1/inbox?after=0&limit=50', { token: agent.securityToken })).json()) as { entries: { counterpart: string; conversationId: string }[] };
    const conversationId = page.entries.find((e) => e.counterpart === CUSTOMER)!.conversationId;
    const waited = await rpcAt(t.url, owner, 'tools/call', { name: 'comms_wait_for_reply', arguments: { conversationId, timeoutSeconds: 600 } });
    assert.equal(waited.result?.resultType, 'task', JSON.stringify(waited));
    const replyTask = String(waited.result!.taskId);
    assert.equal((await t.sim.inbound.sms({ agentId: AGENT, from: CUSTOMER, to: agent.channels.sms!.address, body: 'Secret: yes.' })).status, 200);
    // The long poll answers once the reply is stored; the task reads the same inbox.
    const stored = await t.call('GET', `/api/v1/conversations/${conversationId}/reply?wait=25`, { token: agent.securityToken });
    assert.equal(((await stored.json()) as { timedOut: boolean }).timedOut, false);
    const done = await rpcAt(t.url, owner, 'tasks/get', { taskId: replyTask });
    assert.equal(done.result?.status, 'completed', JSON.stringify(done));
    assert.match(JSON.stringify(done.result), /Secret: yes\./, 'the token that made it reads the reply');

    // A call task whose call rings on.
    t.sim.phone.onOutbound('+14155550822', { answer: 'no-answer', ringMs: 60_000 });
    const placed = await rpcAt(t.url, owner, 'tools/call', { name: 'comms_make_call', arguments: { to: '+14155550822' } });
    assert.equal(placed.result?.resultType, 'task', JSON.stringify(placed));
    const callTask = String(placed.result!.taskId);

    for (const [who, token] of [['another client', sibling], ['a send:sms token of another client', smsOnly]] as const) {
      for (const [method, taskId] of [['tasks/get', replyTask], ['tasks/cancel', callTask], ['tasks/get', callTask], ['tasks/cancel', replyTask]] as const) {
        const refused = await rpcAt(t.url, token, method, { taskId });
        assert.equal(refused.error?.code, -32602, `${who}, ${method}: ${JSON.stringify(refused)}`);
        assert.match(refused.error!.message, /Task not found/);
        assert.doesNotMatch(JSON.stringify(refused), /Secret/);
      }
    }
    // The owner's own grant with a narrower token: found, but each operation needs its scope.
    const noRead = await rpcAt(t.url, ownerSmsOnly, 'tasks/get', { taskId: replyTask });
    assert.equal(noRead.error?.code, -32602, JSON.stringify(noRead));
    assert.match(noRead.error!.message, /switchboard:read/);
    assert.doesNotMatch(JSON.stringify(noRead), /Secret/);
    const noCall = await rpcAt(t.url, ownerSmsOnly, 'tasks/cancel', { taskId: callTask });
    assert.equal(noCall.error?.code, -32602, JSON.stringify(noCall));
    assert.match(noCall.error!.message, /switchboard:call/);

    const ringing = await rpcAt(t.url, owner, 'tasks/get', { taskId: callTask });
    assert.equal(ringing.result?.status, 'working', 'no refused cancel hung the call up');
    const calls = (await (await t.call('GET', '/api/v1/calls?limit=1', { token: agent.securityToken })).json()) as { calls: { status: string }[] };
    assert.ok(!['completed', 'canceled', 'failed', 'busy', 'no-answer'].includes(calls.calls[0]!.status), JSON.stringify(calls));

    // A token of the owner's grant with the call scope (a refreshed one) cancels it.
    const ownerCaller = await mcpToken('owner-app', 'switchboard:call switchboard:read');
    assert.equal((await rpcAt(t.url, ownerCaller, 'tasks/cancel', { taskId: callTask })).error, undefined);
    assert.equal((await rpcAt(t.url, owner, 'tasks/get', { taskId: callTask })).result?.status, 'cancelled');
  });
});
