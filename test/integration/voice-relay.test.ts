import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { samplingAgent } from '../helpers/mcp-client.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import twilio from 'twilio';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const CALLER = '+14155550123';

describe('voice calls in relay mode (ConversationRelay) with the simulator phone', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let secret: string | undefined;
  const turns: string[] = [];

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'relay' });
    agent = await provisionAgent(t, 'voice-relay', ['voice', 'sms'], { greeting: 'Hello from the relay agent.' });
    receiver = await startCallbackReceiver(() => secret);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('an inbound call with no agent reachable becomes an answering machine and a voicemail dead letter', async () => {
    const call = await t.sim.phone.call({ agentId: 'voice-relay', from: CALLER, to: agent.channels.voice!.address, mode: 'relay', script: { steps: ['Please call me back about my order.'] } });
    const recording = await call.done;
    assert.deepEqual(recording.errors, []);
    assert.equal(recording.mode, 'relay');
    const greeting = recording.turns[0]!.agent.text;
    assert.match(greeting, /leave a message/);
    assert.match(recording.turns[1]!.agent.text, /pass your message on/);
    const waiting = (await (await t.call('GET', '/api/v1/waiting-messages?channel=voice', { token: agent.securityToken })).json()) as {
      messages: { reason: string; body: string; from: string }[];
    };
    assert.equal(waiting.messages[0]?.reason, 'voicemail');
    assert.match(waiting.messages[0]!.body, /Caller: Please call me back about my order\./);
    assert.equal(waiting.messages[0]!.from, CALLER);
    // The inbox has the voicemail too (fetching the waiting message does not take it from there).
    const inbox = (await (await t.call('GET', '/api/v1/inbox?channel=voice', { token: agent.securityToken })).json()) as {
      entries: { type: string; counterpart: string; messageId: string | null; payload: { callSid: string; subject: string; body: string } }[];
    };
    const voicemail = inbox.entries.find((e) => e.type === 'voicemail');
    assert.ok(voicemail, JSON.stringify(inbox.entries.map((e) => e.type)));
    assert.deepEqual([voicemail.counterpart, voicemail.messageId, voicemail.payload.callSid, voicemail.payload.subject], [CALLER, null, recording.callSid, 'Voicemail']);
    assert.match(voicemail.payload.body, /Caller: Please call me back about my order\./);
  });

  it('an outbound call with no agent reachable speaks its greeting, not the answering machine, and the reply waits for the agent', async () => {
    const reminder = await provisionAgent(t, 'voice-reminder', ['voice']);
    t.sim.phone.onOutbound('+14155550777', { steps: ['Thanks, I will be there at three.'], replyTimeoutMs: 4000 });
    const res = await t.call('POST', '/api/v1/make-call', { token: reminder.securityToken, json: { to: '+14155550777', greeting: 'Hi, this is a reminder call.' } });
    assert.equal(res.status, 200, await res.clone().text());
    const { callSid } = (await res.json()) as { callSid: string };
    const recording = await t.sim.phone.get(callSid)!.done;
    assert.deepEqual(recording.errors, []);
    const heard = recording.turns.map((turn) => turn.agent.text);
    assert.equal(heard[0], 'Hi, this is a reminder call.');
    assert.ok(!heard.some((text) => /leave a message|reached/.test(text)), `the callee heard an answering machine: ${JSON.stringify(heard)}`);
    assert.match(heard[1] ?? '', /pass that on/);
    await eventually(async () => (await t.gateway.runtime.inspect.stored.waitingLetters('voice-reminder')) > 0, { message: "a waiting letter for 'voice-reminder'" });
    const waiting = (await (await t.call('GET', '/api/v1/waiting-messages?channel=voice', { token: reminder.securityToken })).json()) as {
      messages: { reason: string; body: string; from: string; to: string; externalId: string; direction: string }[];
    };
    assert.equal(waiting.messages.length, 1);
    assert.deepEqual(waiting.messages[0], {
      ...waiting.messages[0],
      reason: 'agent_offline',
      direction: 'inbound',
      body: 'Thanks, I will be there at three.',
      from: '+14155550777',
      to: reminder.channels.voice!.address,
      externalId: callSid,
    });
  });

  it('an unsigned or tampered WebSocket upgrade is refused', async () => {
    for (const upgrade of [{ omitSignature: true }, { tamper: true }]) {
      const call = await t.sim.phone.call({ agentId: 'voice-relay', from: CALLER, to: agent.channels.voice!.address, mode: 'relay', script: { upgrade, steps: ['hello?'] } });
      const recording = await call.done;
      assert.equal(recording.connections[0]?.upgradeStatus, 403, JSON.stringify(recording.connections));
    }
  });

  it('with a callback URL, each turn is a signed call.turn event and its reply is spoken', async () => {
    receiver.status = 200;
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    secret = ((await set.json()) as { signingSecret: string }).signingSecret;
    receiver.reply = (event) => {
      if (event.type !== 'call.turn') return {};
      const said = String(event.data.text);
      turns.push(said);
      return said.includes('bye') ? { text: 'Goodbye!', end: true } : { text: `You said: ${said}` };
    };
    const call = await t.sim.phone.call({ agentId: 'voice-relay', from: CALLER, to: agent.channels.voice!.address, mode: 'relay', script: { steps: ['What time do you open?', 'Thanks, bye'], stayOnLine: true } });
    const recording = await call.done;
    assert.deepEqual(recording.errors, []);
    assert.equal(recording.turns[0]!.agent.text, 'Hello from the relay agent.');
    assert.equal(recording.turns[1]!.agent.text, 'You said: What time do you open?');
    assert.equal(recording.turns[2]!.agent.text, 'Goodbye!');
    assert.equal(recording.endedBy, 'twiml-end', 'the agent ended the relay session, so the TwiML ran out: the caller did not hang up');
    assert.deepEqual(turns, ['What time do you open?', 'Thanks, bye']);
  });

  it('make-call places an outbound call the phone answers; status callbacks fill the call log', async () => {
    t.sim.phone.onOutbound('+14155550999', { steps: ['Hi, who is this?', 'bye'], stayOnLine: true });
    const res = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: '+14155550999', greeting: 'Hi, this is your reminder call.' } });
    assert.equal(res.status, 200, await res.clone().text());
    const placed = (await res.json()) as { callSid: string; sessionId: string; from: string };
    assert.equal(placed.from, agent.channels.voice!.address);
    const recording = await t.sim.phone.get(placed.callSid)!.done;
    assert.equal(recording.turns[0]!.agent.text, 'Hi, this is your reminder call.');
    const call = await eventually(
      async () => {
        const call = await t.gateway.runtime.inspect.stored.call(placed.callSid);
        return call?.status === 'completed' && call;
      },
      { intervalMs: 50, message: 'the call completed' },
    );
    assert.equal(call?.direction, 'outbound');
    assert.ok((call?.durationSeconds ?? -1) >= 0);
    const usage = (await t.gateway.runtime.inspect.stored.usage('voice-relay')).find((u) => u.externalId === placed.callSid && u.action === 'call_minute');
    assert.ok(usage, 'a call-minute usage row is written when the call completes');
  });

  it('/webhooks/voice/status checks the signature first, then finds the call by CallSid', async () => {
    const owner = await provisionAgent(t, 'voice-status', ['voice']);
    t.sim.phone.onOutbound('+14155550666', { steps: ['ok'], replyTimeoutMs: 4000 });
    const placed = (await (await t.call('POST', '/api/v1/make-call', { token: owner.securityToken, json: { to: '+14155550666' } })).json()) as { callSid: string };
    await t.sim.phone.get(placed.callSid)!.done;
    // The simulator's own completed callback must be in before ours, or it would overwrite the duration.
    await eventually(async () => (await t.gateway.runtime.inspect.stored.call(placed.callSid))?.status === 'completed', { intervalMs: 50, message: 'the call completed' });
    const url = `${t.url}/webhooks/voice/status`;
    const post = (params: Record<string, string>, signed = true) =>
      t.call('POST', '/webhooks/voice/status', {
        body: new URLSearchParams(params).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(signed ? { 'x-twilio-signature': twilio.getExpectedTwilioSignature(t.sim.credentials.twilio.authToken, url, params) } : {}),
        },
      });
    const unknownSid = 'CA' + '9'.repeat(32);

    for (const callSid of [placed.callSid, unknownSid]) {
      const unsigned = await post({ CallSid: callSid, CallStatus: 'completed', CallDuration: '42' }, false);
      assert.equal(unsigned.status, 403, 'an unsigned request is refused before any lookup');
      assert.equal(((await unsigned.json()) as { code: string }).code, 'SIGNATURE_INVALID');
    }

    const known = await post({ CallSid: placed.callSid, CallStatus: 'completed', CallDuration: '42' });
    assert.equal(known.status, 200, await known.clone().text());
    assert.match(await known.text(), /<Response\s*\/>/);
    const call = await t.gateway.runtime.inspect.stored.call(placed.callSid);
    assert.deepEqual([call?.agentId, call?.status, call?.durationSeconds], ['voice-status', 'completed', 42]);

    const unknown = await post({ CallSid: unknownSid, CallStatus: 'completed' });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { code: string }).code, 'NOT_FOUND');
  });

  it('a blocked voice channel answers the webhook with nothing', async () => {
    await provisionAgent(t, 'voice-blocked', ['voice']);
    await t.call('POST', '/admin/api/agents/voice-blocked/blocked-channels', { token: t.orchestratorToken, json: { blockedChannels: ['voice'] } });
    const call = await t.sim.phone.call({ agentId: 'voice-blocked', from: CALLER, to: '+12025550100', mode: 'relay', script: { steps: ['hello'] } });
    const recording = await call.done;
    assert.equal(recording.connections.length, 0);
    assert.equal((await t.gateway.runtime.inspect.stored.row<{ n: number }>("SELECT COUNT(*) AS n FROM calls WHERE agent_id = 'voice-blocked'"))!.n, 0);
  });

  it('an agent connected over MCP with sampling answers each turn through sampling/createMessage', async () => {
    const { client, asked } = samplingAgent();
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp?agentId=voice-relay`), { requestInit: { headers: { authorization: `Bearer ${agent.securityToken}` } } }));
    try {
      const call = await t.sim.phone.call({ agentId: 'voice-relay', from: CALLER, to: agent.channels.voice!.address, mode: 'relay', script: { steps: ['Do you deliver on Sundays?'], replyTimeoutMs: 4000, quietMs: 300 } });
      const recording = await call.done;
      assert.equal(recording.turns[1]!.agent.text, 'Sampled answer to: Do you deliver on Sundays?');
      assert.deepEqual(asked, ['Do you deliver on Sundays?']);
    } finally {
      await client.close();
    }
  });
});
