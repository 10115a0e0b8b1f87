import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertWav } from '@switchboard/sdk/testing';
import type { CallRecording } from '@switchboard/provider-simulator';
import { echoReply, startCallAnswerer, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { eventually, steadily } from '@switchboard/runtime/testing';

const CALLER = '+14155550123';
const CALLEE = '+14155550866';
const QUIET_CALLEE = '+14155550867';

interface RecordingLink {
  url: string;
  durationSeconds: number;
  recordedAt: string;
}

/** The mean absolute sample of one channel of a stereo 16-bit WAV. */
function loudness(wav: Buffer, channel: 0 | 1): number {
  const { dataOffset, dataBytes } = assertWav(wav);
  const frames = dataBytes / 4;
  let sum = 0;
  for (let i = 0; i < frames; i++) sum += Math.abs(wav.readInt16LE(dataOffset + i * 4 + channel * 2));
  return sum / frames;
}

/** How long the phone's call lasted, answer to hang-up. */
const callSeconds = (recording: CallRecording) => (recording.endedAt!.getTime() - recording.answeredAt!.getTime()) / 1000;

describe('call recordings: off by default, per call or per agent; stream calls recorded by Switchboard, relay calls by the provider', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let always: Awaited<ReturnType<typeof provisionAgent>>;
  let other: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let streamSid = '';
  let streamSession = '';

  const get = (path: string, token?: string) => t.call('GET', path, token ? { token } : {});
  /** The call's recording link, as the API names it now. */
  const recordingNow = async (callSid: string, token: string): Promise<RecordingLink | null> =>
    ((await (await get(`/api/v1/calls/${callSid}`, token)).json()) as { recording: RecordingLink | null }).recording;
  /** The call's recording link, once stored. */
  const recordingOf = (callSid: string, token: string): Promise<RecordingLink> =>
    eventually(() => recordingNow(callSid, token), { timeoutMs: 15_000, intervalMs: 100, message: `call ${callSid} to name its recording` });

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'relay' });
    agent = await provisionAgent(t, 'rec-agent', ['voice']);
    always = await provisionAgent(t, 'rec-always', ['voice'], { recordCalls: true, greeting: 'Hello, this call is recorded.' });
    other = await provisionAgent(t, 'rec-other', ['voice']);
    receiver = await startCallAnswerer((callbackUrl) => t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl } }), echoReply);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('stream, record: true: a stereo WAV of both legs, as long as the call, served to the owner and the operator only', async () => {
    t.sim.deepgram.registerPhrase('please keep a record of this');
    t.sim.phone.onOutbound(CALLEE, { steps: ['please keep a record of this'], replyTimeoutMs: 8000 });
    const res = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: CALLEE, mode: 'stream', record: true, greeting: 'This call is recorded.' } });
    assert.equal(res.status, 200, await res.clone().text());
    ({ callSid: streamSid, sessionId: streamSession } = (await res.json()) as { callSid: string; sessionId: string });
    const phone = await t.sim.phone.get(streamSid)!.done;
    assert.deepEqual(phone.errors, []);
    assert.ok(phone.turns.some((turn) => turn.caller?.text === 'please keep a record of this'), 'the caller spoke');

    const link = await recordingOf(streamSid, agent.securityToken);
    assert.ok(link, 'the call names its recording once stored');
    assert.equal(link.url, `${t.url}/api/v1/calls/${streamSid}/recording`);
    const audio = await get(`/api/v1/calls/${streamSid}/recording`, agent.securityToken);
    assert.equal(audio.status, 200);
    assert.equal(audio.headers.get('content-type'), 'audio/wav');
    const wav = Buffer.from(await audio.arrayBuffer());
    const info = assertWav(wav);
    assert.deepEqual([info.format, info.channels, info.sampleRate, info.bitsPerSample], [1, 2, 8000, 16], 'PCM, both legs, 8 kHz');
    assert.ok(Math.abs(info.seconds - callSeconds(phone)) < 1.5, `the recording lasts ${info.seconds} s, the call ${callSeconds(phone)} s`);
    assert.ok(Math.abs(link.durationSeconds - info.seconds) < 0.01, 'the link says how long');
    assert.ok(loudness(wav, 0) > 100, `the caller is heard on the left (${loudness(wav, 0)})`);
    assert.ok(loudness(wav, 1) > 100, `the agent's greeting and reply on the right (${loudness(wav, 1)})`);

    // Another agent learns nothing of it; anonymous is unauthenticated; a team token reads the call log but no recording.
    const foreign = await get(`/api/v1/calls/${streamSid}/recording`, other.securityToken);
    assert.deepEqual([foreign.status, ((await foreign.json()) as { code: string }).code], [404, 'NOT_FOUND']);
    assert.equal((await get(`/api/v1/calls/${streamSid}/recording`)).status, 401);
    const team = await get(`/api/v1/calls/${streamSid}/recording`, t.teamToken);
    assert.deepEqual([team.status, ((await team.json()) as { code: string }).code], [403, 'FORBIDDEN']);
    // The operator: with the orchestrator token, and through the admin API the call page plays it from.
    for (const path of [`/api/v1/calls/${streamSid}/recording`, `/admin/api/calls/${streamSid}/recording`]) {
      const operator = await get(path, t.orchestratorToken);
      assert.equal(operator.status, 200, path);
      assert.ok(Buffer.from(await operator.arrayBuffer()).equals(wav), path);
    }

    // MCP comms_get_call carries the same link.
    const mcp = await connectMcp(t.url, 'streamable', agent.securityToken, agent.agentId);
    try {
      const tool = await mcp.call('comms_get_call', { callId: streamSid });
      assert.deepEqual(tool.body.recording, link);
    } finally {
      await mcp.close();
    }
  });

  it('byte ranges on both recording routes: one range is 206 with Content-Range, past the end 416 with a JSON body, several or malformed the whole file', async () => {
    assert.ok(streamSid, 'the stream call above was recorded');
    const whole = Buffer.from(await (await get(`/api/v1/calls/${streamSid}/recording`, agent.securityToken)).arrayBuffer());
    const size = whole.byteLength;
    const ranged = (path: string, range: string) => t.call('GET', path, { token: t.orchestratorToken, headers: { range } });
    for (const path of [`/api/v1/calls/${streamSid}/recording`, `/admin/api/calls/${streamSid}/recording`]) {
      const plain = await get(path, t.orchestratorToken);
      assert.deepEqual([plain.status, plain.headers.get('accept-ranges'), plain.headers.get('content-length')], [200, 'bytes', String(size)], path);
      await plain.arrayBuffer();
      const cases: [range: string, start: number, end: number][] = [
        ['bytes=0-43', 0, 43], // the WAV header, as a player's first look
        ['bytes=100-', 100, size - 1],
        ['bytes=-10', size - 10, size - 1],
        [`bytes=${size - 5}-${size + 1000}`, size - 5, size - 1], // an end past the file is cut to it
        [`bytes=-${size}`, 0, size - 1],
        [`bytes=-${size + 1000}`, 0, size - 1], // a suffix longer than the file is the whole file (RFC 9110 §14.1.3)
      ];
      for (const [range, start, end] of cases) {
        const res = await ranged(path, range);
        assert.equal(res.status, 206, `${path} ${range}`);
        assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${size}`, range);
        assert.equal(res.headers.get('content-type'), 'audio/wav');
        assert.equal(res.headers.get('accept-ranges'), 'bytes');
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(whole.subarray(start, end + 1)), `${path} ${range}: the bytes of the range`);
      }
      for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
        const past = await ranged(path, range);
        assert.deepEqual([past.status, past.headers.get('content-range')], [416, `bytes */${size}`], `${path} ${range}`);
        // The error body is JSON, and says so: never labelled as the audio it is not.
        assert.match(past.headers.get('content-type') ?? '', /^application\/json\b/, `${path} ${range}`);
        const body = (await past.json()) as { code: string; error: string };
        assert.deepEqual([body.code, typeof body.error], ['BAD_REQUEST', 'string'], `${path} ${range}`);
      }
      for (const range of ['bytes=0-1,10-11', 'bytes=abc', 'lines=1-2', `lines=${size + 10}-`]) {
        const res = await ranged(path, range);
        assert.equal(res.status, 200, `${path} ${range}: the whole file`);
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(whole), range);
      }
    }
    // A range does not widen who may read: another agent's is still 404.
    const foreign = await t.call('GET', `/api/v1/calls/${streamSid}/recording`, { token: other.securityToken, headers: { range: 'bytes=0-1' } });
    assert.equal(foreign.status, 404);
  });

  it('off by default: a call that did not ask stores nothing and has no recording', async () => {
    t.sim.deepgram.registerPhrase('no record needed');
    t.sim.phone.onOutbound(QUIET_CALLEE, { steps: ['no record needed'], replyTimeoutMs: 8000 });
    const res = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: QUIET_CALLEE, mode: 'stream' } });
    assert.equal(res.status, 200, await res.clone().text());
    const { callSid, sessionId } = (await res.json()) as { callSid: string; sessionId: string };
    await t.sim.phone.get(callSid)!.done;
    // Once the call's ledger is in, its media connection has closed: a recording would be on its way.
    await eventually(async () => ((await (await get(`/api/v1/calls/${callSid}`, agent.securityToken)).json()) as { ledger: unknown }).ledger, { intervalMs: 100, message: 'the call ended' });
    await steadily(async () => (await recordingNow(callSid, agent.securityToken)) === null, { forMs: 1000, intervalMs: 100, message: 'the call names no recording' });
    const missing = await get(`/api/v1/calls/${callSid}/recording`, agent.securityToken);
    assert.deepEqual([missing.status, ((await missing.json()) as { code: string }).code], [404, 'NOT_FOUND']);
    const dir = join(t.dataDir, 'recordings');
    assert.equal(existsSync(join(dir, `${sessionId}.wav`)), false);
    assert.deepEqual(readdirSync(dir), [`${streamSession}.wav`], 'only the recorded call has a file');
  });

  it("relay, the agent's recordCalls: the provider records, its signed callback is verified, the recording fetched and stored", async () => {
    const call = await t.sim.phone.call({ agentId: always.agentId, from: CALLER, to: always.channels.voice!.address, mode: 'relay', script: { steps: ['I would like to leave a message.'] } });
    const phone = await call.done;
    assert.deepEqual(phone.errors, []);
    const link = await recordingOf(phone.callSid, always.securityToken);
    assert.ok(link, 'the provider recording was fetched and stored');
    const audio = await get(`/api/v1/calls/${phone.callSid}/recording`, always.securityToken);
    assert.equal(audio.status, 200);
    const info = assertWav(Buffer.from(await audio.arrayBuffer()));
    assert.deepEqual([info.channels, info.sampleRate], [2, 8000], "Twilio's dual-channel recording");
    assert.ok(Math.abs(info.seconds - callSeconds(phone)) < 1.5, `the recording lasts ${info.seconds} s, the call ${callSeconds(phone)} s`);
    assert.equal((await get(`/api/v1/calls/${phone.callSid}/recording`, agent.securityToken)).status, 404, "another agent's");

    // The recording callback is checked like every provider webhook: unsigned or tampered is 403, an unknown call 404.
    const url = `${t.url}/webhooks/voice/recording`;
    assert.equal((await t.sim.inbound.recordingStatus({ url, callSid: phone.callSid, omitSignature: true })).status, 403);
    assert.equal((await t.sim.inbound.recordingStatus({ url, callSid: phone.callSid, tamper: true })).status, 403);
    assert.equal((await t.sim.inbound.recordingStatus({ url, callSid: `CA${'0'.repeat(32)}` })).status, 404);
  });

  it('bad input gets contract errors', async () => {
    const bad = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: CALLEE, record: 'yes' } });
    assert.deepEqual([bad.status, ((await bad.json()) as { code: string }).code], [400, 'VALIDATION_FAILED']);
    const badId = await get('/api/v1/calls/CA!bad/recording', agent.securityToken);
    assert.deepEqual([badId.status, ((await badId.json()) as { code: string }).code], [400, 'VALIDATION_FAILED']);
    const provision = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json: { agentId: 'rec-bad', displayName: 'x', channels: ['voice'], recordCalls: 1 } });
    assert.deepEqual([provision.status, ((await provision.json()) as { code: string }).code], [400, 'VALIDATION_FAILED']);
  });
});
