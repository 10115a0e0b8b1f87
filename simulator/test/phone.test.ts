import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { startSimulator, type CallRecording, type Simulator } from '../src/index.js';
import { twilioClientFor } from './helpers.js';
import { startFakeGateway, type FakeGateway, type StreamLog } from './phone-gateway.js';

const CALLER = '+447700900123';
const AGENT_NUMBER = '+15555550100';
const FAST = { quietMs: 300, replyTimeoutMs: 5000 };

describe('simulator phone', { concurrency: true }, () => {
  let sim: Simulator;
  let gateway: FakeGateway;
  const streamOf = (agentId: string): StreamLog => gateway.streams.find((s) => s.agentId === agentId)!;
  const statusHooks = (callSid: string) => gateway.webhooks.filter((w) => w.path.includes('/call-status') && w.params['CallSid'] === callSid);

  const utterances: Array<{ text: string; mode: string }> = [];

  before(async () => {
    const twilioCredentials = { accountSid: `AC${'a1'.repeat(16)}`, authToken: 'b2'.repeat(16) };
    gateway = await startFakeGateway(twilioCredentials.authToken, {
      'relay-agent': { mode: 'relay', greeting: 'Hello, how can I help?' },
      'relay-action': { mode: 'relay', greeting: 'Hi.', connectAction: true },
      'stream-agent': { mode: 'stream', greeting: 'Hello caller' },
      'stream-barge': { mode: 'stream', replyChars: (turn) => (turn === 1 ? 60 : 10) },
      'stream-redirect': { mode: 'stream' },
      'out-relay': { mode: 'relay', greeting: 'This is your agent calling.' },
      'out-stream': { mode: 'stream', greeting: 'Hi, it is the agent' },
      'guarded': { mode: 'relay' },
      'verbs': {
        mode: 'relay',
        twiml: (base) =>
          `<Response><Say voice="Polly.Joanna" language="en-US">Welcome to the verbs test</Say><Play>${base}/audio/hold.wav</Play><Pause length="0.2"/>` +
          `<Dial callerId="${AGENT_NUMBER}"><Number>+15550001111</Number></Dial><Play>${base}/audio/page.html</Play><Hangup/><Say>never heard</Say></Response>`,
      },
      'public-relay': { mode: 'relay', greeting: 'Hi.', publicWsBase: 'wss://switchboard.example' },
    });
    sim = await startSimulator({
      gatewayUrl: gateway.url,
      credentials: { twilio: twilioCredentials },
      phone: {
        dialMs: 20,
        ringMs: 60,
        urlRewrites: { 'wss://switchboard.example': gateway.url.replace('http', 'ws') },
        onUtterance: (text, info) => utterances.push({ text, mode: info.mode }),
      },
    });
  });
  after(async () => {
    await sim.close();
    await gateway.close();
  });

  it('inbound relay call: signed webhook and upgrade, setup, prompts, replies per turn, signed completed callback', async () => {
    const call = await sim.phone.call({ agentId: 'relay-agent', from: CALLER, to: AGENT_NUMBER, mode: 'relay', script: { ...FAST, steps: ['I would like a table for two'] } });
    const rec = await call.done;
    assert.deepEqual(rec.errors, []);
    assert.equal(rec.status, 'completed');
    assert.equal(rec.endedBy, 'caller');
    assert.equal(rec.mode, 'relay');
    const voice = gateway.webhooks.find((w) => w.path === '/webhooks/relay-agent/voice' && w.params['CallSid'] === call.callSid)!;
    assert.ok(voice.valid);
    assert.deepEqual([voice.params['CallStatus'], voice.params['Direction'], voice.params['From'], voice.params['To']], ['ringing', 'inbound', CALLER, AGENT_NUMBER]);
    assert.deepEqual(rec.connections.map((c) => [c.mode, c.upgradeStatus, c.signature, c.closedBy]), [['relay', 101, 'valid', 'caller']]);
    const log = gateway.relays.find((r) => r.messages[0]?.['callSid'] === call.callSid)!;
    const setup = log.messages[0]!;
    assert.equal(setup['type'], 'setup');
    assert.match(String(setup['sessionId']), /^VX[0-9a-f]{32}$/);
    assert.deepEqual([setup['from'], setup['to'], setup['direction']], [CALLER, AGENT_NUMBER, 'inbound']);
    assert.deepEqual(setup['customParameters'], { agentId: 'relay-agent', purpose: 'test' });
    assert.deepEqual(log.messages[1], { type: 'prompt', voicePrompt: 'I would like a table for two', lang: 'en-US', last: true });
    assert.equal(rec.turns[0]!.agent.text, 'Hello, how can I help?');
    assert.equal(rec.turns[1]!.caller?.text, 'I would like a table for two');
    assert.equal(rec.turns[1]!.agent.text, 'You said: I would like a table for two');
    assert.ok(rec.turns[1]!.agent.complete && rec.turns[1]!.agent.latencyMs! >= 0);
    const [completed] = statusHooks(call.callSid);
    assert.ok(completed?.valid, 'status callback signed');
    assert.equal(completed.params['CallStatus'], 'completed');
    assert.equal(completed.params['CallDuration'], String(rec.durationSeconds));
    assert.equal(completed.params['Price'], '-0.00850');
    assert.equal(rec.price, '-0.00850');
    assert.equal(sim.calls().find((c) => c.sid === call.callSid)?.direction, 'inbound');
  });

  it('relay barge-in sends interrupt, digits go as dtmf, end hands off to the Connect action', async () => {
    const call = await sim.phone.call({
      agentId: 'relay-action',
      from: CALLER,
      to: AGENT_NUMBER,
      script: { ...FAST, steps: ['tell me a story', { kind: 'say', text: 'stop', bargeIn: true, afterMs: 400 }, { kind: 'dtmf', digits: '12' }, 'goodbye'] },
    });
    const rec = await call.done;
    assert.deepEqual(rec.errors, []);
    const log = gateway.relays.find((r) => r.messages[0]?.['callSid'] === call.callSid)!;
    const types = log.messages.map((m) => m['type']);
    assert.deepEqual(types, ['setup', 'prompt', 'interrupt', 'prompt', 'dtmf', 'dtmf', 'prompt']);
    const interrupt = log.messages[2]!;
    // What was heard before the caller cut in: ~400 ms of the story at 60 ms a character.
    const heardBefore = String(interrupt['utteranceUntilInterrupt']);
    assert.ok(heardBefore.length >= 5 && 'Once upon a time there'.startsWith(heardBefore), heardBefore);
    assert.ok(Number(interrupt['durationUntilInterruptMs']) >= 350);
    assert.deepEqual([log.messages[4]!['digit'], log.messages[5]!['digit']], ['1', '2']);
    assert.equal(rec.turns[1]!.agent.interrupted, true);
    assert.equal(rec.turns[3]!.caller?.digits, '12');
    assert.equal(rec.connections[0]!.handoffData, '{"reason":"caller said goodbye"}');
    assert.equal(rec.connections[0]!.closedBy, 'agent');
    const action = gateway.webhooks.find((w) => w.path.endsWith('/connect-done') && w.params['CallSid'] === call.callSid)!;
    assert.ok(action.valid);
    assert.equal(action.params['HandoffData'], '{"reason":"caller said goodbye"}');
    assert.deepEqual(
      rec.heard.map((h) => h.kind + (h.kind === 'say' ? `:${h.text}` : '')),
      ['connect', 'say:Thanks for calling', 'hangup'],
    );
    assert.equal(rec.endedBy, 'agent');
  });

  it('inbound stream call: real-time frames with speech, greeting and replies played, marks answered after playback', async () => {
    const call = await sim.phone.call({ agentId: 'stream-agent', from: CALLER, to: AGENT_NUMBER, mode: 'stream', script: { ...FAST, steps: ['Hello there', 'What time'] } });
    const rec = await call.done;
    assert.deepEqual(rec.errors, []);
    assert.equal(rec.mode, 'stream');
    const log = streamOf('stream-agent');
    const [connected, start] = log.messages;
    assert.deepEqual(connected, { event: 'connected', protocol: 'Call', version: '1.0.0' });
    const startBody = start!['start'] as Record<string, unknown>;
    assert.deepEqual(startBody['mediaFormat'], { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 });
    assert.deepEqual(startBody['customParameters'], { agentId: 'stream-agent', purpose: 'test' });
    assert.equal(startBody['callSid'], call.callSid);
    assert.match(String(start!['streamSid']), /^MZ[0-9a-f]{32}$/);
    assert.equal(log.messages.at(-1)!['event'], 'stop');

    // About 50 frames a second, end to end.
    const seconds = (log.arrivals.at(-1)! - log.arrivals[0]!) / 1000;
    const rate = (log.arrivals.length - 1) / seconds;
    assert.ok(rate > 45 && rate < 55, `frame rate ${rate.toFixed(1)}/s`);
    assert.equal(rec.frames.sent, log.arrivals.length);
    // Lateness depends on the machine's load (tests run side by side); the rate above does not.
    assert.ok(rec.frames.late < rec.frames.sent / 2, `late ${rec.frames.late} of ${rec.frames.sent}`);
    assert.ok(rec.frames.meanJitterMs >= 0 && rec.frames.maxJitterMs >= rec.frames.meanJitterMs);
    // Speech energy in the caller's frames: about 2 utterances' worth.
    assert.ok(log.speechFrames > 20 && log.speechFrames < 80, `speech frames ${log.speechFrames}`);

    assert.deepEqual(rec.marks.map((m) => [m.name, m.cleared]), [['greeting', false], ['reply-1', false], ['reply-2', false]]);
    for (const sent of log.marksSent) {
      const back = log.marksBack.find((m) => m.name === sent.name)!;
      const waited = back.at - sent.at;
      assert.ok(waited >= sent.audioMs - 40 && waited < sent.audioMs + 500, `${sent.name}: answered after ${waited.toFixed(0)} ms for ${sent.audioMs} ms of audio`);
    }
    assert.equal(rec.turns.length, 3);
    for (const turn of rec.turns) {
      assert.ok(turn.agent.audio.length > 0, `turn ${turn.index} heard audio`);
      assert.ok(turn.agent.speechMs > 100, `turn ${turn.index} speech ${turn.agent.speechMs} ms`);
      assert.equal(turn.agent.audio.length / 8, turn.agent.audioMs);
    }
    assert.equal(rec.frames.playedMs, rec.frames.receivedMs);
    assert.ok(utterances.some((u) => u.text === 'Hello there' && u.mode === 'stream'), 'onUtterance told');
    assert.ok(sim.deepgram.phrases().includes('Hello there'), 'the simulated Deepgram can transcribe it');
  });

  it('connects to the public wss:// URL of the TwiML through urlRewrites, signed over the public URL', async () => {
    const rec = await (await sim.phone.call({ agentId: 'public-relay', from: CALLER, to: AGENT_NUMBER, script: { ...FAST, steps: ['Hi'] } })).done;
    assert.deepEqual(rec.errors, []);
    const [connection] = rec.connections;
    assert.equal(connection!.url, 'wss://switchboard.example/webhooks/public-relay/voice-ws');
    assert.equal(connection!.connectedUrl, `${gateway.url.replace('http', 'ws')}/webhooks/public-relay/voice-ws`);
    assert.equal(connection!.upgradeStatus, 101);
    assert.equal(rec.turns[1]!.agent.text, 'You said: Hi');
  });

  it('stream barge-in: the caller talks over a reply, the clear drops queued audio and answers the pending mark', async () => {
    const call = await sim.phone.call({
      agentId: 'stream-barge',
      from: CALLER,
      to: AGENT_NUMBER,
      script: { ...FAST, steps: ['Hello there', { kind: 'say', text: 'wait a moment', bargeIn: true, afterMs: 500 }] },
    });
    const rec = await call.done;
    assert.deepEqual(rec.errors, []);
    assert.equal(rec.clears.length, 1);
    assert.ok(rec.clears[0]!.duringCallerSpeech);
    assert.ok(rec.clears[0]!.droppedMs > 1500, `dropped ${rec.clears[0]!.droppedMs} ms`);
    assert.deepEqual(rec.marks.map((m) => [m.name, m.cleared]), [['reply-1', true], ['reply-2', false]]);
    assert.equal(rec.turns[1]!.agent.interrupted, true);
    assert.equal(rec.turns[2]!.caller?.bargeIn, true);
    assert.equal(rec.frames.clearedMs, rec.clears[0]!.droppedMs);
    assert.ok(streamOf('stream-barge').marksBack.some((m) => m.name === 'reply-1'));
  });

  for (const mode of ['relay', 'stream'] as const) {
    it(`outbound ${mode} call: progress callbacks in order, signed TwiML fetch, the callee speaks`, async () => {
      const callee = mode === 'relay' ? '+15551230001' : '+15551230002';
      const remove = sim.phone.onOutbound(callee, { ...FAST, ringMs: 30, steps: ['Yes, speaking'] });
      const client = twilioClientFor(sim);
      const created = await client.calls.create({
        to: callee,
        from: AGENT_NUMBER,
        url: `${gateway.url}/webhooks/out-${mode}/outbound-voice`,
        statusCallback: `${gateway.url}/webhooks/out-${mode}/call-status`,
        statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
      });
      remove();
      const rec = await sim.phone.get(created.sid)!.done;
      assert.deepEqual(rec.errors, []);
      assert.equal(rec.mode, mode);
      const hooks = statusHooks(created.sid);
      assert.deepEqual(hooks.map((h) => [h.params['CallStatus'], h.params['SequenceNumber'], h.valid]), [
        ['initiated', '0', true],
        ['ringing', '1', true],
        ['in-progress', '2', true],
        ['completed', '3', true],
      ]);
      const completed = hooks[3]!.params;
      assert.equal(completed['Direction'], 'outbound-api');
      assert.equal(completed['CallbackSource'], 'call-progress-events');
      assert.match(completed['Price']!, /^-0\.01400$/);
      assert.equal(completed['CallDuration'], String(rec.durationSeconds));
      const fetch = gateway.webhooks.find((w) => w.path.endsWith('/outbound-voice') && w.params['CallSid'] === created.sid)!;
      assert.ok(fetch.valid);
      assert.deepEqual([fetch.params['CallStatus'], fetch.params['Direction'], fetch.params['ApiVersion'], fetch.params['AccountSid']], ['in-progress', 'outbound-api', '2010-04-01', sim.credentials.twilio.accountSid]);
      assert.equal(rec.turns[1]!.caller?.text, 'Yes, speaking');
      assert.ok(mode === 'relay' ? rec.turns[1]!.agent.text === 'You said: Yes, speaking' : rec.turns[1]!.agent.speechMs > 0);
      const resource = await client.calls(created.sid).fetch();
      assert.deepEqual([resource.status, resource.price, resource.duration], ['completed', '-0.01400', String(rec.durationSeconds)]);
    });
  }

  it('outbound busy and no-answer end with their status, no duration and no charge', async () => {
    const client = twilioClientFor(sim);
    const results: Array<[string, CallRecording]> = [];
    for (const answer of ['busy', 'no-answer'] as const) {
      const callee = answer === 'busy' ? '+15551230003' : '+15551230004';
      sim.phone.onOutbound(callee, { answer, ringMs: 50 });
      const created = await client.calls.create({ to: callee, from: AGENT_NUMBER, url: `${gateway.url}/webhooks/out-relay/outbound-voice`, statusCallback: `${gateway.url}/webhooks/out-relay/call-status` });
      results.push([created.sid, await sim.phone.get(created.sid)!.done]);
    }
    for (const [sid, rec] of results) {
      const [completed, ...more] = statusHooks(sid);
      assert.equal(more.length, 0, 'only the completed event by default');
      assert.deepEqual([completed!.params['CallStatus'], completed!.params['CallDuration'], completed!.params['Price']], [rec.status, '0', '0.00000']);
      assert.equal(rec.twiml.length, 0, 'no TwiML fetched');
    }
    assert.deepEqual(results.map(([, r]) => r.status), ['busy', 'no-answer']);
  });

  it('executes Say, Play, Pause, Dial and Hangup and records what was heard', async () => {
    const call = await sim.phone.call({ agentId: 'verbs', from: CALLER, to: AGENT_NUMBER, script: { dialTalkMs: 100 } });
    const rec = await call.done;
    const kinds = rec.heard.map((h) => h.kind);
    assert.deepEqual(kinds, ['say', 'play', 'pause', 'dial', 'play', 'hangup']);
    const [say, hold, pause, dial, page] = rec.heard;
    assert.deepEqual(say, { kind: 'say', text: 'Welcome to the verbs test', voice: 'Polly.Joanna', language: 'en-US', at: say!.at });
    assert.ok(hold?.kind === 'play' && hold.audio && hold.contentType === 'audio/wav' && hold.durationMs === 600, JSON.stringify(hold));
    assert.ok(pause?.kind === 'pause' && pause.seconds === 0.2);
    assert.ok(dial?.kind === 'dial' && dial.numbers[0] === '+15550001111' && dial.callerId === AGENT_NUMBER && dial.outcome === 'completed');
    assert.ok(page?.kind === 'play' && !page.audio && page.status === 200);
    assert.match(rec.errors.join('\n'), /<Play> .*page\.html: not audio/);
    assert.equal(rec.endedBy, 'agent');
    assert.equal(rec.status, 'completed');
  });

  it('breaks signatures on request: a tampered or missing upgrade signature and a tampered webhook are refused', async () => {
    const tampered = await (await sim.phone.call({ agentId: 'guarded', from: CALLER, to: AGENT_NUMBER, script: { upgrade: { tamper: true } } })).done;
    const omitted = await (await sim.phone.call({ agentId: 'guarded', from: CALLER, to: AGENT_NUMBER, script: { upgrade: { omitSignature: true } } })).done;
    for (const [rec, signature] of [[tampered, 'tampered'], [omitted, 'omitted']] as const) {
      assert.deepEqual(rec.connections.map((c) => [c.signature, c.upgradeStatus]), [[signature, 403]]);
      assert.match(rec.errors[0]!, /upgrade refused with HTTP 403 \(Twilio error 64102\)/);
      assert.deepEqual(rec.heard.map((h) => h.kind), ['connect', 'say'], 'goes on with the next verb');
    }
    const refusals = gateway.upgrades.filter((u) => u.path === '/webhooks/guarded/voice-ws');
    assert.deepEqual(refusals.map((u) => u.valid), [false, false]);

    const refused = await sim.phone.call({ agentId: 'guarded', from: CALLER, to: AGENT_NUMBER, tamper: true });
    const rec = await refused.done;
    assert.equal(rec.status, 'failed');
    assert.equal(rec.twiml[0]!.status, 403);
    assert.match(rec.errors[0]!, /answered HTTP 403/);
  });

  it('follows REST updates: a redirect stops the stream and runs the new TwiML; Status=completed hangs up', async () => {
    const client = twilioClientFor(sim);
    const first = await sim.phone.call({ agentId: 'stream-redirect', from: CALLER, to: AGENT_NUMBER, script: { stayOnLine: true } });
    await eventually(() => first.recording.frames.sent > 10, { intervalMs: 10, message: () => `the first call to send over 10 frames (it sent ${first.recording.frames.sent})` });
    await client.calls(first.callSid).update({ twiml: '<Response><Say>Transferring you now</Say><Dial><Number>+15550002222</Number></Dial></Response>' });
    const rec = await first.done;
    assert.deepEqual(rec.heard.map((h) => h.kind), ['connect', 'say', 'dial']);
    assert.equal(rec.connections[0]!.closedBy, 'redirect');
    const log = gateway.streams.filter((s) => s.agentId === 'stream-redirect')[0]!;
    assert.equal(log.messages.at(-1)!['event'], 'stop');
    assert.equal(rec.endedBy, 'twiml-end');

    const second = await sim.phone.call({ agentId: 'stream-redirect', from: CALLER, to: AGENT_NUMBER, script: { stayOnLine: true } });
    await eventually(() => second.recording.frames.sent > 5, { intervalMs: 10, message: () => `the second call to send over 5 frames (it sent ${second.recording.frames.sent})` });
    await client.calls(second.callSid).update({ status: 'completed' });
    const ended = await second.done;
    assert.equal(ended.endedBy, 'api');
    assert.equal(ended.connections[0]!.closedBy, 'agent');
  });

  it('control API: place a call with curl-like JSON, read it back, refuse a bad script', async () => {
    const res = await fetch(`${sim.url}/_sim/phone/call?wait=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'relay-agent', from: CALLER, to: AGENT_NUMBER, script: { ...FAST, steps: ['Hi from curl'] } }),
    });
    assert.equal(res.status, 200);
    const placed = (await res.json()) as { callSid: string; status: string; recording: CallRecording };
    assert.equal(placed.status, 'completed');
    assert.equal(placed.recording.turns[1]!.agent.text, 'You said: Hi from curl');
    const one = (await (await fetch(`${sim.url}/_sim/phone/calls/${placed.callSid}`)).json()) as CallRecording;
    assert.equal(one.callSid, placed.callSid);
    const list = (await (await fetch(`${sim.url}/_sim/phone/calls`)).json()) as { calls: Array<{ callSid: string }> };
    assert.ok(list.calls.some((c) => c.callSid === placed.callSid));
    const bad = await fetch(`${sim.url}/_sim/phone/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'relay-agent', from: CALLER, to: AGENT_NUMBER, script: { steps: [{ kind: 'sing' }] } }),
    });
    assert.equal(bad.status, 400);
    const rule = await fetch(`${sim.url}/_sim/phone/outbound`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ match: 'some-agent', script: { answer: 'busy' } }) });
    assert.equal(rule.status, 201);
    assert.ok(sim.phone.outboundRules().some((r) => r.match === 'some-agent'));
    const pacing = (await (await fetch(`${sim.url}/_sim/phone/pacing`)).json()) as { ticks: number };
    assert.ok(pacing.ticks > 0);
  });
});
