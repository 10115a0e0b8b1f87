// Telnyx chosen for voice the way an operator chooses it (DRIVERS, DRIVER_TELNYX_*, VOICE_DRIVER=telnyx,
// VOICE_MODE=stream), against the simulated Telnyx Call Control: an outbound call placed by the agent
// is answered by the simulated phone and runs through the same audio pipeline as a Twilio stream call
// (simulated speech-to-text and text-to-speech) until the agent hangs up by command; an incoming call to
// the agent's number is answered by command and reaches the agent; an unsigned call event is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { simulatorDriverSpecs, startGateway, type Gateway } from '@switchboard/gateway';
import { startSimulator, type CallRecording, type Simulator } from '@switchboard/provider-simulator';
import { createLogger, loadSettings } from '@switchboard/runtime';
import { eventually } from '@switchboard/runtime/testing';
import { echoReply, startCallAnswerer, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { connectMcp } from '../helpers/mcp-client.js';

const NUMBER = '+15555550100';
const CALLER = '+14155550123';
const CALLEE = '+14155550848';
const ORCHESTRATOR = 'sb_orch_test_telnyx_voice_0123456789abcdefghij';

interface CallBody {
  callSid: string;
  durationSeconds: number;
  direction: string;
  mode: string;
  status: string;
  from: string;
  to: string;
  connectedAt: string | null;
  endedAt: string | null;
  ledger: { greeting: { latencyMs: number | null } | null; turns: { turn: number; latencyMs: number | null; stamps: Record<string, number | null> }[] } | null;
  transcript: { turn: number; role: 'caller' | 'agent'; text: string }[];
}

/** What the phone said and heard, turn by turn. */
function spoken(recording: CallRecording): { turn: number; role: string; text: string }[] {
  return recording.turns.flatMap((turn) => [
    ...(turn.caller?.text ? [{ turn: turn.index, role: 'caller', text: turn.caller.text }] : []),
    ...(turn.agent.text ? [{ turn: turn.index, role: 'agent', text: turn.agent.text }] : []),
  ]);
}

describe('Telnyx selected for voice: Call Control with media streams', { timeout: 90_000 }, () => {
  let sim: Simulator;
  let gateway: Gateway;
  let dir: string;
  let agentId: string;
  let agentToken: string;
  let agentNumber: string;
  let receiver: CallbackReceiver;

  const call = (method: string, path: string, token: string, json?: unknown) =>
    fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  const calls = async () => Number((await gateway.runtime.inspect.stored.row<{ n: number }>('SELECT COUNT(*) AS n FROM calls'))?.n ?? 0);
  /** The call as the calls API shows it, once its status is final and its ledger written. */
  const settled = (callSid: string) =>
    eventually(
      async () => {
        const res = await call('GET', `/api/v1/calls/${encodeURIComponent(callSid)}`, agentToken);
        const body = (await res.json()) as CallBody;
        return res.status === 200 && body.status === 'completed' && body.ledger && body.endedAt ? body : undefined;
      },
      { intervalMs: 50, message: () => `call ${callSid} completed with its ledger` },
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-telnyx-voice-'));
    sim = await startSimulator({ phoneNumbers: [NUMBER] });
    const settings = loadSettings({
      env: {
        DRIVERS: '@switchboard/driver-telnyx',
        DRIVER_TELNYX_API_KEY: sim.credentials.telnyx.apiKey,
        DRIVER_TELNYX_PUBLIC_KEY: sim.credentials.telnyx.publicKey,
        DRIVER_TELNYX_BASE_URL: sim.baseUrls.telnyx,
        DRIVER_TELNYX_CONNECTION_ID: 'call-control-app-1',
        VOICE_DRIVER: 'telnyx',
        SMS_DRIVER: 'twilio',
        VOICE_MODE: 'stream',
      },
      overrides: { PORT: 0, DATA_DIR: dir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ORCHESTRATOR_TOKEN: ORCHESTRATOR, DEMO_MODE: 'false', POOL_PHONE_NUMBERS: NUMBER },
    });
    // The built-in drivers (Twilio, which offers voice too; the simulated ElevenLabs and Deepgram for speech) on the same simulator.
    gateway = await startGateway({ settings, logger: createLogger({ level: 'silent', pretty: false }), drivers: simulatorDriverSpecs(sim) });
    sim.gatewayUrl = gateway.url;
    const team = await gateway.runtime.inspect.tokens.teamToken();
    const res = await call('POST', '/api/v1/provision', team, { agentId: 'tv', displayName: 'tv', channels: ['voice'], greeting: 'Hello from the Telnyx agent.' });
    const body = (await res.json()) as { agentId: string; securityToken: string; channels: Record<string, { address: string }> };
    assert.equal(res.status, 201, JSON.stringify(body));
    agentId = body.agentId;
    agentToken = body.securityToken;
    agentNumber = body.channels.voice!.address;
    receiver = await startCallAnswerer((callbackUrl) => call('PUT', '/api/v1/callback-url', agentToken, { callbackUrl }), echoReply);
  });
  after(async () => {
    await gateway?.stop();
    await receiver?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports telnyx as the voice provider', async () => {
    const status = (await (await call('GET', `/api/v1/channel-status?agentId=${agentId}`, agentToken)).json()) as { channels: Record<string, { provider: string }> };
    assert.equal(status.channels.voice?.provider, 'telnyx');
  });

  it('an outbound call is dialled with its stream, answered by the phone, heard both ways, and hung up by command', async () => {
    sim.phone.onOutbound(CALLEE, { steps: ['What time do you open?', 'Thanks, bye'], stayOnLine: true, replyTimeoutMs: 8000 });
    const res = await call('POST', '/api/v1/make-call', agentToken, { to: CALLEE });
    const placed = (await res.json()) as { callSid: string; status: string };
    assert.equal(res.status, 200, JSON.stringify(placed));
    assert.match(placed.callSid, /^v3:/, 'the call is known by its call_control_id');
    const recording = await sim.phone.get(placed.callSid)!.done;
    assert.deepEqual(recording.errors, []);
    assert.equal(recording.endedBy, 'api', 'the agent ended the call with a hangup command');
    // The stream Telnyx was told to open: the gateway's media WebSocket, with the session and its token.
    const [connection] = recording.connections;
    assert.equal(connection?.mode, 'stream');
    assert.equal(connection.upgradeStatus, 101);
    assert.match(connection.url, new RegExp(`^${gateway.url.replace(/^http/, 'ws')}/webhooks/tv/voice-ws\\?session=ses_[^&]+&token=[A-Za-z0-9_-]+$`));
    // Heard both ways: the greeting and each reply reached the phone as audio; the caller's words reached the agent.
    assert.ok(recording.frames.speechMs > 0, 'the phone heard speech');
    const heard = spoken(recording);
    assert.deepEqual(heard.filter((l) => l.role === 'caller').map((l) => l.text), ['What time do you open?', 'Thanks, bye']);
    assert.ok(receiver.events.some((e) => e.event.type === 'call.turn' && e.event.data.text === 'What time do you open?'), 'the agent was asked with the caller\'s words');

    const detail = await settled(placed.callSid);
    assert.deepEqual([detail.direction, detail.mode, detail.from, detail.to], ['outbound', 'stream', agentNumber, CALLEE]);
    assert.ok(Math.abs(detail.durationSeconds - recording.durationSeconds) <= 1, `the call lasted ${recording.durationSeconds} s; the log says ${detail.durationSeconds} s`);
    assert.deepEqual(
      detail.transcript.map(({ role, text }) => ({ role, text })),
      [
        { role: 'agent', text: 'Hello from the Telnyx agent.' },
        { role: 'caller', text: 'What time do you open?' },
        { role: 'agent', text: 'You said: What time do you open?' },
        { role: 'caller', text: 'Thanks, bye' },
        { role: 'agent', text: 'Goodbye!' },
      ],
    );
    assert.equal(detail.ledger!.turns.length, 2);
    for (const turn of detail.ledger!.turns) {
      assert.notEqual(turn.stamps.transcriptReady, null, 'our speech-to-text transcribed the turn');
      assert.notEqual(turn.stamps.firstFrameSent, null, 'the reply was sent as audio');
    }
    assert.ok(detail.ledger!.greeting!.latencyMs !== null);
    // The hang-up reached the call log through the signed call.hangup event.
    assert.deepEqual(
      recording.statusEvents.filter((e) => e.event).map((e) => [e.event, e.callbackStatus]),
      [
        ['call.initiated', 200],
        ['call.answered', 200],
        ['call.hangup', 200],
      ],
    );
  });

  it('over MCP: comms_make_call places a Telnyx call and comms_get_call reads it by its call_control_id', async () => {
    const mcp = await connectMcp(gateway.url, 'streamable', agentToken, agentId);
    try {
      sim.phone.onOutbound('+14155550849', { steps: ['Okay, bye.'], stayOnLine: true, replyTimeoutMs: 8000 });
      const placed = await mcp.call('comms_make_call', { to: '+14155550849', greeting: 'Hi.' });
      assert.equal(placed.isError, false, JSON.stringify(placed.body));
      const callSid = String(placed.body.callSid);
      assert.match(callSid, /^v3:/);
      const recording = await sim.phone.get(callSid)!.done;
      assert.deepEqual(recording.errors, []);
      const rest = await settled(callSid);
      const tool = await mcp.call('comms_get_call', { callId: callSid });
      assert.equal(tool.isError, false, JSON.stringify(tool.body));
      assert.deepEqual(tool.body, rest);
      assert.deepEqual(rest.transcript.map((l) => l.text), ['Hi.', 'Okay, bye.', 'Goodbye!']);
    } finally {
      await mcp.close();
    }
  });

  it("an incoming call to the agent's Telnyx number is answered by command and reaches the agent", async () => {
    const phoneCall = await sim.phone.call({ provider: 'telnyx', agentId, from: CALLER, to: agentNumber, script: { steps: ['Is anybody there?', 'Thanks, bye'], stayOnLine: true, replyTimeoutMs: 8000 } });
    const recording = await phoneCall.done;
    assert.deepEqual(recording.errors, []);
    assert.equal(recording.twiml[0]?.status, 200, 'call.initiated was taken');
    assert.ok(recording.answeredAt, 'the gateway answered the call');
    assert.deepEqual(spoken(recording).filter((l) => l.role === 'caller').map((l) => l.text), ['Is anybody there?', 'Thanks, bye']);
    assert.ok(receiver.events.some((e) => e.event.type === 'call.turn' && e.event.data.text === 'Is anybody there?'));
    const detail = await settled(phoneCall.callSid);
    assert.deepEqual([detail.direction, detail.mode, detail.from, detail.to], ['inbound', 'stream', CALLER, agentNumber]);
    assert.deepEqual(detail.transcript.filter((l) => l.role === 'caller').map((l) => l.text), ['Is anybody there?', 'Thanks, bye']);
    assert.equal(detail.transcript.at(-1)?.text, 'Goodbye!');
  });

  it('an unsigned call event is refused with the contract error body, and nothing is stored', async () => {
    const before = await calls();
    const phoneCall = await sim.phone.call({ provider: 'telnyx', agentId, from: CALLER, to: agentNumber, omitSignature: true });
    const recording = await phoneCall.done;
    const [refused] = recording.twiml;
    assert.equal(refused?.status, 403);
    const body = JSON.parse(refused.body) as { error: unknown; code: unknown };
    assert.equal(body.code, 'SIGNATURE_INVALID');
    assert.equal(typeof body.error, 'string');
    assert.equal(recording.answeredAt, undefined, 'the call was never answered');
    assert.equal(await calls(), before, 'no call was logged');
  });
});
