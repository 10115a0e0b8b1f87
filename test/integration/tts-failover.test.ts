// Two text-to-speech providers (TTS_DRIVER=elevenlabs,openai): a live stream call's replies are spoken
// by ElevenLabs while it answers, and by OpenAI when it fails (an error, or no speech in time), so the
// caller still hears them; with ElevenLabs well, OpenAI is never asked; with ElevenLabs hanging, its circuit
// opens and later turns skip it until the half-open probe finds it well. Embedded and clustered (scripts/test.mjs).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulatorDriverSpecs } from '@switchboard/gateway';
import { eventually } from '@switchboard/runtime/testing';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const CALLER = '+14155550123';
/** How long ElevenLabs' open circuit keeps turns from it: long enough for two calls, short enough to wait out. */
const HALF_OPEN_MS = 15_000;
/** Questions for the circuit's calls, one per call, so each reply's text names its turn at the simulators. */
const QUESTIONS = ['garden seating', 'wine list', 'gift vouchers', 'private rooms', 'vegan options', 'late checkout', 'pet policy', 'bike storage', 'kids menu', 'live music', 'corkage fee', 'car park', 'terrace heaters', 'birthday cakes', 'group bookings', 'gluten free'];

describe('a call whose speech provider fails goes on in the second voice', { timeout: 120_000 }, () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let secret: string | undefined;

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'stream', TTS_DRIVER: 'elevenlabs,openai', TTS_FAILOVER_TIMEOUT_MS: 1000, PROVIDER_CIRCUIT_FAILURES: 3, PROVIDER_CIRCUIT_HALF_OPEN_MS: HALF_OPEN_MS }, undefined, {
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

  it('with ElevenLabs hanging, its circuit opens: later turns go to OpenAI without asking it; once it answers, the half-open probe brings it back', async () => {
    const questions = [...QUESTIONS];
    const reply = (question: string) => `You asked about ${question}`;
    /** How many times ElevenLabs was asked to speak `text`, answered or not. */
    const askedElevenLabs = (text: string) => t.sim.requests('elevenlabs').filter((r) => (r.body as { text?: string } | undefined)?.text === text).length;
    /** One call asking the next question; answers the reply's text once the caller heard it. */
    const nextCall = async () => {
      const question = questions.shift()!;
      const recording = await callAsking(question);
      assert.ok(recording.turns[1]!.agent.speechMs > 500, `the reply to "${question}" is heard`);
      return reply(question);
    };
    t.sim.faults.add({ provider: 'elevenlabs', pathIncludes: '/text-to-speech/', timeout: true });
    try {
      // Each turn ElevenLabs holds costs the failover time-out and counts towards its circuit, until a turn skips it.
      await eventually(
        async () => {
          const text = await nextCall();
          assert.ok(spokenByOpenAi().includes(text), 'OpenAI spoke the reply');
          return askedElevenLabs(text) === 0 || undefined;
        },
        { timeoutMs: 90_000, intervalMs: 0, message: "a turn spoken without asking ElevenLabs, once its circuit opened" },
      );
      const text = await nextCall();
      assert.ok(spokenByOpenAi().includes(text), 'OpenAI spoke the next reply');
      assert.equal(askedElevenLabs(text), 0, 'the open circuit kept the next turn from ElevenLabs too');
      const metrics = await (await t.call('GET', '/metrics')).text();
      assert.match(metrics, /switchboard_provider_circuit_state\{provider="elevenlabs"\} 2/, "ElevenLabs' circuit reported open");
    } finally {
      t.sim.faults.clear();
    }
    // ElevenLabs answers again: once the half-open time passes, a turn probes it, and it speaks.
    await eventually(
      async () => {
        const text = await nextCall();
        return t.sim.requests('elevenlabs').some((r) => r.status === 200 && (r.body as { text?: string } | undefined)?.text === text) || undefined;
      },
      { timeoutMs: 90_000, intervalMs: 1000, message: 'ElevenLabs to speak a turn again after the half-open time' },
    );
    const text = await nextCall();
    assert.equal(askedElevenLabs(text), 1, 'ElevenLabs speaks the turns again');
    assert.ok(!spokenByOpenAi().includes(text), 'OpenAI is not asked');
  });
});
