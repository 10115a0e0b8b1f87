import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp, type ConnectedClient } from '../helpers/mcp-client.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550123';
const EXPECTED_TOOLS = [
  'comms_call_on_behalf',
  'comms_check_consent',
  'comms_deprovision_channels',
  'comms_do_not_contact',
  'comms_get_billing',
  'comms_get_call',
  'comms_get_channel_status',
  'comms_get_conversation',
  'comms_get_usage',
  'comms_get_waiting_messages',
  'comms_inbox_ack',
  'comms_inbox_read',
  'comms_link_contacts',
  'comms_list_conversations',
  'comms_make_call',
  'comms_ping',
  'comms_provision_channels',
  'comms_record_consent',
  'comms_revoke_consent',
  'comms_send_message',
  'comms_send_voice_message',
  'comms_set_callback_url',
  'comms_transfer_call',
  'comms_wait_for_reply',
];

for (const kind of ['sse', 'streamable'] as const) {
  describe(`MCP over ${kind === 'sse' ? 'HTTP+SSE' : 'Streamable HTTP'} with the official client`, () => {
    let t: TestGateway;
    let agent: Awaited<ReturnType<typeof provisionAgent>>;
    let mcp: ConnectedClient;
    before(async () => {
      t = await startTestGateway();
      agent = await provisionAgent(t, `mcp-${kind}`, ['sms', 'email']);
      mcp = await connectMcp(t.url, kind, agent.securityToken, agent.agentId);
    });
    after(async () => {
      await mcp.close().catch(() => undefined);
      await t.close();
    });

    it('lists the tools, each with the input schema of its REST route, names under 64 characters', async () => {
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), EXPECTED_TOOLS);
      const send = tools.find((x) => x.name === 'comms_send_message')!;
      assert.equal(send.inputSchema.required, undefined, 'channel and to, or a conversationId; body, or a WhatsApp template: the route checks which');
      assert.ok(send.inputSchema.properties?.['template'], 'a WhatsApp template instead of body');
      assert.ok(tools.every((x) => x.name.length < 64 && x.description));
      assert.deepEqual(mcp.client.getServerCapabilities()?.logging, {});
    });

    it('on connect tells the agent how many messages wait', async () => {
      const data = await mcp.next('switchboard.waiting');
      assert.equal(data.agentId, agent.agentId);
      assert.equal(data.waitingMessages, 0);
    });

    it('calls every tool: success results are the REST answers as JSON text', async () => {
      const ping = await mcp.call('comms_ping');
      assert.deepEqual([ping.isError, ping.body.principal, ping.body.agentId], [false, 'client', agent.agentId]);
      const sent = await mcp.call('comms_send_message', { channel: 'sms', to: CUSTOMER, body: 'from a tool' });
      assert.equal(sent.isError, false);
      assert.equal(sent.body.from, agent.channels.sms!.address);
      assert.ok(t.sim.messages({ provider: 'twilio' }).some((m) => m.id === sent.body.externalId && m.body === 'from a tool'));
      const status = await mcp.call('comms_get_channel_status');
      assert.equal((status.body.channels as Record<string, { status: string }>).sms!.status, 'active');
      const usage = await mcp.call('comms_get_usage', { period: 'today' });
      assert.equal((usage.body.totals as { messages: number }).messages, 1);
      const billing = await mcp.call('comms_get_billing', { period: 'today' });
      assert.equal(typeof billing.body.billedCost, 'number');
      const waiting = await mcp.call('comms_get_waiting_messages', { limit: 10 });
      assert.deepEqual([waiting.isError, waiting.body.count], [false, 0]);
      const callback = await mcp.call('comms_set_callback_url', { callbackUrl: null });
      assert.equal(callback.body.success, true);
    });

    it('failures are isError results carrying the contract error body', async () => {
      const invalid = await mcp.call('comms_send_message', { channel: 'pager', to: CUSTOMER, body: 'x' });
      assert.equal(invalid.isError, true);
      assert.equal(invalid.body.code, 'VALIDATION_FAILED');
      const notHeld = await mcp.call('comms_send_message', { channel: 'line', to: 'U' + 'a'.repeat(32), body: 'x' });
      assert.equal(notHeld.body.code, 'CHANNEL_NOT_PROVISIONED');
      const otherAgent = await mcp.call('comms_get_usage', { agentId: 'someone-else' });
      assert.deepEqual([otherAgent.isError, otherAgent.body.code], [true, 'FORBIDDEN']);
      const provision = await mcp.call('comms_provision_channels', { displayName: 'x', channels: ['sms'] });
      assert.deepEqual([provision.isError, provision.body.code], [true, 'FORBIDDEN'], 'a client token may not provision');
      const unknown = await mcp.call('comms_fly');
      assert.equal(unknown.isError, true);
    });

    it('a signed inbound SMS reaches the connected agent as notifications/message', async () => {
      const res = await t.sim.inbound.sms({ agentId: agent.agentId, from: CUSTOMER, to: agent.channels.sms!.address, body: 'ping over mcp' });
      assert.equal(res.status, 200);
      const data = await mcp.next('switchboard.inbound', (d) => d.body === 'ping over mcp');
      assert.deepEqual([data.channel, data.from, data.externalId], ['sms', CUSTOMER, res.id]);
      await eventually(
        async () => (await t.gateway.runtime.inspect.stored.row<{ delivery: string }>('SELECT delivery FROM messages WHERE external_id = ?', [res.id]))?.delivery === 'done',
        { message: 'the message marked delivered once the session took it' },
      );
    });

    it('team tokens provision and deprovision through tools', async () => {
      const team = await connectMcp(t.url, kind, t.teamToken);
      try {
        const made = await team.call('comms_provision_channels', { agentId: `tool-made-${kind}`, displayName: 'x', channels: ['line'] });
        assert.equal(made.isError, false, JSON.stringify(made.body));
        assert.match(String(made.body.securityToken), /^sb_live_/);
        const gone = await team.call('comms_deprovision_channels', { agentId: `tool-made-${kind}` });
        assert.equal(gone.body.status, 'deprovisioned');
      } finally {
        await team.close();
      }
    });
  });
}

describe('MCP sessions: auth, replacement, fallback and shutdown', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let secret: string | undefined;
  before(async () => {
    t = await startTestGateway({ AUTH_LOCKOUT_ATTEMPTS: 1000 });
    agent = await provisionAgent(t, 'mcp-life', ['sms']);
    receiver = await startCallbackReceiver(() => secret);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses bad, missing and other-agent tokens', async () => {
    const other = await provisionAgent(t, 'mcp-other', ['line']);
    const sse = (q: string) => fetch(`${t.url}/sse?${q}`);
    const missing = await sse('agentId=mcp-life');
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as { code: string }).code, 'UNAUTHORIZED');
    assert.equal((await sse('token=nope&agentId=mcp-life')).status, 401);
    const wrongAgent = await sse(`token=${other.securityToken}&agentId=mcp-life`);
    assert.equal(wrongAgent.status, 403);
    assert.equal(((await wrongAgent.json()) as { code: string }).code, 'FORBIDDEN');
    await assert.rejects(connectMcp(t.url, 'streamable', 'nope'));
  });

  it('a post to /messages needs the bearer token of the session\'s principal', async () => {
    const controller = new AbortController();
    const res = await fetch(`${t.url}/sse?token=${agent.securityToken}&agentId=mcp-life`, { signal: controller.signal });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('sessionId=')) text += new TextDecoder().decode((await reader.read()).value);
    const endpoint = /data: (\/messages\?sessionId=[^\s]+)/.exec(text)![1]!;
    const post = (token?: string) =>
      fetch(`${t.url}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    const anonymous = await post();
    assert.equal(anonymous.status, 401, 'the session id alone is not a credential');
    assert.equal(((await anonymous.json()) as { code: string }).code, 'UNAUTHORIZED');
    assert.equal((await post('sb_not_a_token')).status, 401);
    assert.equal((await post(t.teamToken)).status, 403);
    assert.equal((await post(agent.securityToken)).status, 202);
    controller.abort();
  });

  it('a newer session replaces the older; the older one\'s close does not unregister the newer', async () => {
    const first = await connectMcp(t.url, 'sse', agent.securityToken, 'mcp-life');
    const second = await connectMcp(t.url, 'streamable', agent.securityToken, 'mcp-life');
    // Live once its listening stream is open (announced by switchboard.waiting); until then a message waits.
    await second.next('switchboard.waiting');
    await first.close().catch(() => undefined);
    await t.sim.inbound.sms({ agentId: 'mcp-life', from: CUSTOMER, to: agent.channels.sms!.address, body: 'to the newest' });
    const data = await second.next('switchboard.inbound', (d) => d.body === 'to the newest');
    assert.equal(data.body, 'to the newest');
    assert.ok(!first.notifications.some((n) => (n.data as { body?: string }).body === 'to the newest'));
    await second.close();
  });

  it('after the agent disconnects, the next message goes to its callback URL, then to a dead letter — never lost', async () => {
    const session = await connectMcp(t.url, 'sse', agent.securityToken, 'mcp-life');
    await session.close();
    await new Promise((r) => setTimeout(r, 100));
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    secret = ((await set.json()) as { signingSecret: string }).signingSecret;
    await t.sim.inbound.sms({ agentId: 'mcp-life', from: CUSTOMER, to: agent.channels.sms!.address, body: 'to the callback' });
    const [received] = await receiver.waitFor(1);
    assert.equal(received!.event.data.body, 'to the callback');

    await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: null } });
    await t.sim.inbound.sms({ agentId: 'mcp-life', from: CUSTOMER, to: agent.channels.sms!.address, body: 'to the dead letters' });
    await eventually(async () => (await t.gateway.runtime.inspect.stored.waitingLetters('mcp-life')) > 0, { message: "a waiting letter for 'mcp-life'" });
    const reconnect = await connectMcp(t.url, 'sse', agent.securityToken, 'mcp-life');
    const waiting = await reconnect.next('switchboard.waiting');
    assert.equal(waiting.waitingMessages, 1);
    const fetched = await reconnect.call('comms_get_waiting_messages');
    assert.equal((fetched.body.messages as { body: string; reason: string }[])[0]!.body, 'to the dead letters');
    await reconnect.close();
  });

  it('counts live sessions in the metrics', async () => {
    const session = await connectMcp(t.url, 'sse', agent.securityToken, 'mcp-life');
    const text = await (await t.call('GET', '/metrics')).text();
    assert.match(text, /switchboard_sse_sessions 1/);
    await session.close();
  });

  it('server shutdown closes sessions cleanly', async () => {
    const session = await connectMcp(t.url, 'sse', agent.securityToken, 'mcp-life');
    let seen: Error | undefined;
    session.client.onerror = (err) => (seen ??= err);
    assert.equal(t.gateway.mcp.count, 1);
    await t.gateway.stop();
    assert.equal(t.gateway.mcp.count, 0, 'every session is closed on the server');
    await eventually(() => seen, { message: 'the client sees its stream end' });
    await session.close();
  });
});
