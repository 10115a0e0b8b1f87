// Two text-to-speech providers (TTS_DRIVER=elevenlabs,openai): a live stream call's replies are spoken
// by ElevenLabs while it answers, and by OpenAI when it fails (an error, or no speech in time), so the
// caller still hears them; with ElevenLabs well, OpenAI is never asked. Embedded and clustered (scripts/test.mjs).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulatorDriverSpecs } from '@switchboard/gateway';
import { eventually } from '@switchboard/runtime/testing';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const CALLER = '+14155550123';

describe('a call whose speech provider fails goes on in the second voice', { timeout: 120_000 }, () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let secret: string | undefined;

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'stream', TTS_DRIVER: 'elevenlabs,openai', TTS_FAILOVER_TIMEOUT_MS: 1000 }, undefined, {
      drivers: (sim) => [...simulatorDriverSpecs(sim), { packageName: '@switchboard/driver-openai', settings: { apiKey: sim.credentials.openai.apiKey, baseUrl: sim.baseUrls.openai } }],
    });
    agent = await provisionAgent(t, 'two-voices', ['voice'], { greeting: 'Hello, two voices here.' });
    receiver = await startCallbackReceiver(() => secret);
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    secret = ((await set.json()) as { signingSecret: string }).signingSecret;
    receiver.reply = (event) => (event.type === 'call.turn' ? { text: `You asked about ${String(event.data.text).toLowerCase()}` } : {});
  });
  after(async () => {
    t?.sim.faults.clear();
    await t?.close();
    await receiver?.close();
  });

  /** One call asking `question`; answers the recording of what the caller heard. */
  const callAsking = async (question: string) => {
    t.sim.deepgram.registerPhrase(question);
    const call = await t.sim.phone.call({
      agentId: 'two-voices',
      from: CALLER,
      to: agent.channels.voice!.address,
      mode: 'stream',
      script: { steps: [question], replyTimeoutMs: 8000 },
    });
    return call.done;
  };
  /** The texts OpenAI was asked to speak. */
  const spokenByOpenAi = () => t.sim.requests('openai').filter((r) => r.path.endsWith('/audio/speech')).map((r) => (r.body as { input: string }).input);

  it('with ElevenLabs answering, every word is its own and OpenAI is asked nothing', async () => {
    const recording = await callAsking('opening hours');
    assert.ok(recording.turns[0]!.agent.speechMs > 500, 'the greeting is heard');
    assert.ok(recording.turns[1]!.agent.speechMs > 500, 'the reply is heard');
    assert.ok(t.sim.requests('elevenlabs').some((r) => (r.body as { text?: string } | undefined)?.text === 'You asked about opening hours'));
    assert.deepEqual(spokenByOpenAi(), []);
  });

  it('with ElevenLabs failing, the reply is spoken by OpenAI and the caller hears it', async () => {
    t.sim.faults.add({ provider: 'elevenlabs', status: 503 });
    try {
      const recording = await callAsking('table for two');
      assert.ok(recording.turns[1]!.agent.speechMs > 500, `the reply is heard (${recording.turns[1]!.agent.speechMs} ms of speech)`);
      assert.ok(spokenByOpenAi().includes('You asked about table for two'), 'OpenAI spoke the reply');
      const failedAtElevenLabs = t.sim.requests('elevenlabs').filter((r) => r.status === 503 && (r.body as { text?: string } | undefined)?.text === 'You asked about table for two');
      assert.equal(failedAtElevenLabs.length, 1, 'ElevenLabs was asked once, and failed');
    } finally {
      t.sim.faults.clear();
    }
    await eventually(
      async () => {
        const metrics = await (await t.call('GET', '/metrics')).text();
        return /switchboard_provider_failovers_total\{channel="tts",from="elevenlabs",to="openai"\} [1-9]/.test(metrics) || undefined;
      },
      { timeoutMs: 10_000, message: 'the failover counted in the metrics' },
    );
  });

  it('with ElevenLabs too slow, the reply is spoken by OpenAI; the next turn is ElevenLabs again', async () => {
    t.sim.faults.add({ provider: 'elevenlabs', pathIncludes: '/text-to-speech/', latencyMs: 4000, times: 1 });
    try {
      const recording = await callAsking('parking nearby');
      assert.ok(recording.turns[1]!.agent.speechMs > 500, 'the reply is heard');
      assert.ok(spokenByOpenAi().includes('You asked about parking nearby'), 'OpenAI spoke the reply');
    } finally {
      t.sim.faults.clear();
    }
    const before = spokenByOpenAi().length;
    const recording = await callAsking('dessert menu');
    assert.ok(recording.turns[1]!.agent.speechMs > 500, 'the next reply is heard');
    assert.equal(spokenByOpenAi().length, before, 'ElevenLabs, answering again, spoke it');
  });
});
