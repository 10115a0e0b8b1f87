import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const FAST = { replyTimeoutMs: 4000, quietMs: 300 };

describe('voice operations: secretary calls, transfer, voice messages', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'relay' });
    agent = await provisionAgent(t, 'voice-ops', ['voice']);
  });
  after(() => t.close());

  const post = (path: string, json: object) => t.call('POST', path, { token: agent.securityToken, json });

  it('call-on-behalf: the target says yes and is bridged to the requester', async () => {
    t.sim.phone.onOutbound('+14155550301', { steps: ['Yes, put them through.'], stayOnLine: true, ...FAST });
    const res = await post('/api/v1/call-on-behalf', { target: '+14155550301', targetName: 'Dana', requesterPhone: '+14155550302', requesterName: 'Sam', message: 'the contract' });
    assert.equal(res.status, 200, await res.clone().text());
    const placed = (await res.json()) as { callSid: string; bridge: string };
    assert.equal(placed.bridge, 'available');
    const recording = await t.sim.phone.get(placed.callSid)!.done;
    assert.match(recording.turns[0]!.agent.text, /Hello Dana, I'm an assistant calling on behalf of Sam about the contract\. Would you like to take the call\?/);
    assert.match(recording.turns[1]!.agent.text, /connecting you now/);
    const dial = recording.heard.find((h) => h.kind === 'dial') as { numbers: string[] } | undefined;
    assert.deepEqual(dial?.numbers, ['+14155550302'], JSON.stringify(recording.heard));
  });

  it('call-on-behalf: the target declines and leaves a message that reaches the agent', async () => {
    t.sim.phone.onOutbound('+14155550303', { steps: ['No, not now.', 'Tell Sam I will call tomorrow.'], stayOnLine: true, ...FAST });
    const res = await post('/api/v1/call-on-behalf', { target: '+14155550303', requesterPhone: '+14155550302', requesterName: 'Sam' });
    const placed = (await res.json()) as { callSid: string };
    const recording = await t.sim.phone.get(placed.callSid)!.done;
    assert.match(recording.turns[1]!.agent.text, /May I take a message\?/);
    assert.ok(!recording.heard.some((h) => h.kind === 'dial'), 'no bridge on a no');
    const waiting = (await (await t.call('GET', '/api/v1/waiting-messages?channel=voice', { token: agent.securityToken })).json()) as { messages: { reason: string; body: string; subject?: string }[] };
    const letter = waiting.messages.find((m) => m.body.includes('Tell Sam I will call tomorrow.'));
    assert.equal(letter?.reason, 'voicemail');
    assert.equal(letter?.subject, 'Message taken on a secretary call');
  });

  it('channel-status counts the calls of the voice channel, placed and received', async () => {
    const counted = await provisionAgent(t, 'voice-counted', ['voice', 'sms']);
    const messageCounts = async () => {
      const status = (await (await t.call('GET', '/api/v1/channel-status', { token: counted.securityToken })).json()) as { channels: Record<string, { messageCount: number }> };
      return [status.channels.voice!.messageCount, status.channels.sms!.messageCount];
    };
    assert.deepEqual(await messageCounts(), [0, 0]);
    const calls = [];
    for (const to of ['+14155550311', '+14155550312']) {
      t.sim.phone.onOutbound(to, { ...FAST });
      const res = await t.call('POST', '/api/v1/make-call', { token: counted.securityToken, json: { to, greeting: 'Just checking in.' } });
      assert.equal(res.status, 200, await res.clone().text());
      calls.push(t.sim.phone.get(((await res.json()) as { callSid: string }).callSid)!.done);
    }
    calls.push((await t.sim.phone.call({ agentId: 'voice-counted', from: '+14155550313', to: counted.channels.voice!.address, mode: 'relay', script: { steps: [] } })).done);
    await Promise.all(calls);
    assert.deepEqual(await messageCounts(), [3, 0], 'two placed calls and one received');
  });

  it('transfer-call moves a live call to another number with an announcement', async () => {
    t.sim.phone.onOutbound('+14155550304', { steps: [{ kind: 'listen', ms: 2500 }], stayOnLine: true, ...FAST });
    const placed = (await (await post('/api/v1/make-call', { to: '+14155550304', greeting: 'One moment please.' })).json()) as { callSid: string };
    const phoneCall = t.sim.phone.get(placed.callSid)!;
    await eventually(async () => (await t.gateway.runtime.inspect.stored.call(placed.callSid))?.status === 'in-progress', { intervalMs: 50, message: 'the call in progress' });
    const res = await post('/api/v1/transfer-call', { callSid: placed.callSid, to: '+14155550305', announcementText: 'Transferring you to billing.' });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { success: true, callSid: placed.callSid, transferredTo: '+14155550305', status: 'transferred' });
    const recording = await phoneCall.done;
    assert.ok(recording.heard.some((h) => h.kind === 'say' && h.text === 'Transferring you to billing.'), JSON.stringify(recording.heard));
    assert.ok(recording.heard.some((h) => h.kind === 'dial' && h.numbers.includes('+14155550305')));
    const missing = await post('/api/v1/transfer-call', { callSid: 'CA' + '0'.repeat(32), to: '+14155550305' });
    assert.equal(missing.status, 404);
  });

  it('send-voice-message stores a valid WAV of the stated duration at an unguessable URL and plays it on a call', async () => {
    t.sim.phone.onOutbound('+14155550306', { ...FAST });
    const res = await post('/api/v1/send-voice-message', { to: '+14155550306', text: 'Your parcel arrives tomorrow between nine and noon.' });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { callSid: string; audioUrl: string; durationSeconds: number };
    assert.match(body.audioUrl, /\/media\/voice-messages\/vm_[A-Za-z0-9_-]{22}\.wav$/);
    const wav = Buffer.from(await (await fetch(body.audioUrl)).arrayBuffer());
    assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
    assert.equal(wav.toString('ascii', 8, 12), 'WAVE');
    const rate = wav.readUInt32LE(24);
    const dataBytes = wav.readUInt32LE(40);
    assert.equal(wav.length, 44 + dataBytes);
    assert.ok(Math.abs(dataBytes / 2 / rate - body.durationSeconds) < 0.01, 'durationSeconds is the real duration');
    assert.ok(body.durationSeconds > 1);
    const recording = await t.sim.phone.get(body.callSid)!.done;
    const played = recording.heard.find((h) => h.kind === 'play') as { url: string; audio: boolean } | undefined;
    assert.equal(played?.url, body.audioUrl);
    assert.equal(played?.audio, true);
    assert.equal((await fetch(body.audioUrl.replace(/vm_[^/]+$/, 'vm_guessed.wav'))).status, 404);
  });

  it('validates voice requests and refuses what the agent does not hold', async () => {
    assert.equal((await post('/api/v1/make-call', { to: '555-0100' })).status, 400);
    const noVoice = await provisionAgent(t, 'no-voice', ['sms']);
    const res = await t.call('POST', '/api/v1/make-call', { token: noVoice.securityToken, json: { to: '+14155550307' } });
    assert.equal(res.status, 409);
    assert.equal(((await res.json()) as { code: string }).code, 'CHANNEL_NOT_PROVISIONED');
  });
});
