import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const CALLER = '+14155550123';

describe('voice calls in stream mode (Media Streams) with the audio pipeline, STT and TTS', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let secret: string | undefined;

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'stream' });
    agent = await provisionAgent(t, 'voice-stream', ['voice'], { greeting: 'Hello, stream agent here.' });
    receiver = await startCallbackReceiver(() => secret);
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    secret = ((await set.json()) as { signingSecret: string }).signingSecret;
    receiver.reply = (event) => {
      if (event.type !== 'call.turn') return {};
      const said = String(event.data.text);
      if (said.includes('goodbye')) return { text: 'Goodbye.', end: true };
      if (said.includes('long')) return { text: 'Here is a rather long answer that goes on and on so that you have plenty of time to interrupt me while I keep talking about nothing much at all.' };
      return { text: `You asked about ${said.toLowerCase()}` };
    };
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('an inbound call: speech is detected, transcribed, answered, synthesised and paced back with marks', async () => {
    for (const phrase of ['opening hours', 'that is all goodbye']) t.sim.deepgram.registerPhrase(phrase);
    const call = await t.sim.phone.call({
      agentId: 'voice-stream',
      from: CALLER,
      to: agent.channels.voice!.address,
      mode: 'stream',
      script: { steps: ['opening hours', 'that is all goodbye'], stayOnLine: true, replyTimeoutMs: 8000 },
    });
    const recording = await call.done;
    assert.deepEqual(recording.errors, []);
    assert.equal(recording.mode, 'stream');
    const greeting = recording.turns[0]!.agent;
    assert.ok(greeting.speechMs > 500, `the greeting is heard as speech (${greeting.speechMs} ms)`);
    const answer = recording.turns[1]!.agent;
    assert.ok(answer.speechMs > 500, 'the reply is heard as speech');
    assert.ok(recording.marks.some((m) => m.answeredAt && !m.cleared), 'marks come back after playback');
    assert.ok(recording.frames.receivedMs > 2000, `the phone heard ${recording.frames.receivedMs} ms of audio`);
    const texts = receiver.events.filter((e) => e.event.type === 'call.turn').map((e) => e.event.data.text);
    assert.deepEqual(texts, ['opening hours', 'that is all goodbye']);
    const metrics = await (await t.call('GET', '/metrics')).text();
    assert.match(metrics, /switchboard_voice_frame_delay_seconds_count [1-9]/);
  });

  it("a reply text-to-speech fails to make is a failed turn, not the server's end: the call carries on", async () => {
    for (const phrase of ['opening hours', 'that is all goodbye']) t.sim.deepgram.registerPhrase(phrase);
    // The greeting's audio is kept from the call before; the next speech asked for is the first reply's.
    t.sim.faults.add({ provider: 'elevenlabs', status: 400, times: 1 });
    const call = await t.sim.phone.call({
      agentId: 'voice-stream',
      from: CALLER,
      to: agent.channels.voice!.address,
      mode: 'stream',
      script: { steps: ['opening hours', 'that is all goodbye'], replyTimeoutMs: 3000 },
    });
    const recording = await call.done;
    assert.equal(recording.turns[1]!.agent.speechMs, 0, 'the first reply was not heard');
    assert.ok(recording.turns[2]!.agent.speechMs > 300, 'the goodbye was heard: the call and its server carried on');
    assert.equal(recording.endedBy, 'twiml-end', 'the agent ended the call (its media stream closed)');
  });

  it('barge-in: caller speech during playback sends clear and stops the rest of the reply', async () => {
    for (const phrase of ['tell me something long', 'stop please']) t.sim.deepgram.registerPhrase(phrase);
    const call = await t.sim.phone.call({
      agentId: 'voice-stream',
      from: CALLER,
      to: agent.channels.voice!.address,
      mode: 'stream',
      script: { steps: ['tell me something long', { kind: 'say', text: 'stop please', bargeIn: true, afterMs: 1200 }], replyTimeoutMs: 8000 },
    });
    const recording = await call.done;
    assert.ok(recording.clears.length >= 1, 'the gateway sent clear');
    const long = recording.turns[1]!.agent;
    assert.ok(long.interrupted, 'the long reply was interrupted');
    assert.ok(long.audioMs < 8000, `the rest of the reply was not sent (${long.audioMs} ms heard)`);
  });

  it('a reply to a newer turn cuts the one still playing: the caller spoke again before it began, so it is not queued behind it', async () => {
    for (const phrase of ['tell me something long', 'actually what time do you open tomorrow']) t.sim.deepgram.registerPhrase(phrase);
    // The agent thinks for a while: its long answer begins while the caller, tired of waiting, already speaks again.
    receiver.replyDelayMs = 1500;
    try {
      const call = await t.sim.phone.call({
        agentId: 'voice-stream',
        from: CALLER,
        to: agent.channels.voice!.address,
        mode: 'stream',
        script: {
          steps: [{ kind: 'pause', ms: 3000 }, 'tell me something long', { kind: 'pause', ms: 900 }, 'actually what time do you open tomorrow', { kind: 'listen', ms: 5000 }],
          replyTimeoutMs: 300,
        },
      });
      const recording = await call.done;
      assert.deepEqual(recording.errors, []);
      assert.ok(recording.turns[2]!.agent.firstAt, 'the second question was answered');
      // The ledger is written as the media connection closes.
      type Ledger = { turns: { components: { switchboardMs: number | null } }[] };
      const ledgerOf = async () => ((await (await t.call('GET', `/api/v1/calls/${call.callSid}`, { token: agent.securityToken })).json()) as { ledger: Ledger | null }).ledger;
      let ledger = await ledgerOf();
      for (let waited = 0; ledger === null && waited < 5000; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
        ledger = await ledgerOf();
      }
      const added = ledger?.turns[1]?.components.switchboardMs;
      assert.ok(added !== null && added !== undefined && added < 1000, `the second answer did not wait for the first to finish: Switchboard added ${added} ms`);
      assert.ok(recording.clears.some((c) => !c.duringCallerSpeech), 'the first answer was cleared when the second began');
      assert.ok(recording.turns[1]!.agent.audioMs < 7000, `the rest of the first answer was not sent (${recording.turns[1]!.agent.audioMs} ms heard)`);
    } finally {
      receiver.replyDelayMs = 0;
    }
  });

  it("an agent's greeting is synthesised once and kept: the next call's greeting does not wait on text-to-speech", async () => {
    const since = Math.max(0, ...t.sim.requests('elevenlabs').map((r) => r.seq));
    for (let i = 0; i < 2; i++) {
      const call = await t.sim.phone.call({ agentId: 'voice-stream', from: CALLER, to: agent.channels.voice!.address, mode: 'stream', script: { steps: [{ kind: 'listen', ms: 2500 }] } });
      const recording = await call.done;
      assert.deepEqual(recording.errors, []);
      assert.ok(recording.turns[0]!.agent.speechMs > 500, `call ${i + 1} heard the greeting (${recording.turns[0]!.agent.speechMs} ms of speech)`);
    }
    const greetings = t.sim.requests('elevenlabs').filter((r) => r.seq > since && r.method === 'POST' && (r.body as { text?: unknown } | undefined)?.text === 'Hello, stream agent here.');
    assert.ok(greetings.length <= 1, `the greeting was synthesised ${greetings.length} times`);
  });

  it('make-call in stream mode with no agent reachable: the callee hears the greeting, not the answering machine, and the reply waits', async () => {
    const reminder = await provisionAgent(t, 'stream-reminder', ['voice']);
    t.sim.deepgram.registerPhrase('see you at three');
    t.sim.phone.onOutbound('+14155550889', { steps: ['see you at three'], replyTimeoutMs: 8000 });
    const since = Math.max(0, ...t.sim.requests('elevenlabs').map((r) => r.seq));
    const res = await t.call('POST', '/api/v1/make-call', { token: reminder.securityToken, json: { to: '+14155550889', mode: 'stream', greeting: 'Hi, this is a reminder call.' } });
    assert.equal(res.status, 200, await res.clone().text());
    const { callSid } = (await res.json()) as { callSid: string };
    const recording = await t.sim.phone.get(callSid)!.done;
    assert.deepEqual(recording.errors, []);
    assert.ok(recording.turns[0]!.agent.speechMs > 500, 'the greeting is heard');
    const spoken = t.sim
      .requests('elevenlabs')
      .filter((r) => r.seq > since && r.method === 'POST')
      .map((r) => String((r.body as { text?: unknown } | undefined)?.text));
    assert.equal(spoken[0], 'Hi, this is a reminder call.');
    assert.ok(!spoken.some((text) => /leave a message|reached/.test(text)), `the callee heard an answering machine: ${JSON.stringify(spoken)}`);
    assert.match(spoken[1] ?? '', /pass that on/);
    await eventually(async () => (await t.gateway.runtime.inspect.stored.waitingLetters('stream-reminder')) > 0, { message: "a waiting letter for 'stream-reminder'" });
    const waiting = (await (await t.call('GET', '/api/v1/waiting-messages?channel=voice', { token: reminder.securityToken })).json()) as {
      messages: { reason: string; body: string; from: string; externalId: string }[];
    };
    assert.deepEqual(
      waiting.messages.map((m) => [m.reason, m.body, m.from, m.externalId]),
      [['agent_offline', 'see you at three', '+14155550889', callSid]],
    );
  });

  it('make-call in stream mode: the answered outbound call hears the greeting as audio', async () => {
    t.sim.deepgram.registerPhrase('who is calling');
    t.sim.phone.onOutbound('+14155550888', { steps: ['who is calling'], replyTimeoutMs: 8000 });
    const res = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: '+14155550888', mode: 'stream', greeting: 'This is an automated reminder.' } });
    assert.equal(res.status, 200, await res.clone().text());
    const { callSid } = (await res.json()) as { callSid: string };
    const recording = await t.sim.phone.get(callSid)!.done;
    assert.equal(recording.mode, 'stream');
    assert.ok(recording.turns[0]!.agent.speechMs > 500);
    assert.ok(recording.turns[1]!.agent.speechMs > 300, 'the answer to the question is spoken');
  });
});
