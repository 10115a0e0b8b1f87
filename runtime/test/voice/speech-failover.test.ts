import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCodes, SwitchboardError, type Driver, type SpeechSynthesis, type SynthesizedAudio } from '@switchboard/sdk';
import { RuntimeEvents } from '../../src/events.js';
import { eventually } from '../../src/testing/eventually.js';
import { speechCircuits, speechWithFailover } from '../../src/voice/speech-failover.js';

type Asked = Parameters<SpeechSynthesis['synthesize']>[0];

/** A TTS driver whose synthesis does what `answer` says, recording what it was asked. */
function ttsDriver(provider: string, answer: (asked: Asked) => Promise<SynthesizedAudio>) {
  const asked: Asked[] = [];
  const driver = {
    manifest: { name: `@switchboard/driver-${provider}`, version: '0.1.0', provider, sdk: '^0.1.0', channels: [], speech: ['tts'], settingsSchema: {} },
    tts: {
      synthesize: (request: Asked) => {
        asked.push(request);
        return answer(request);
      },
      voices: () => Promise.resolve([{ id: `${provider}-voice`, name: provider }]),
    },
  } as unknown as Driver & { tts: SpeechSynthesis };
  return { driver, asked };
}

const audio = (byte: number): Promise<SynthesizedAudio> => Promise.resolve({ audio: Buffer.alloc(160, byte), format: 'ulaw_8000', sampleRate: 8000 });
const fails = () => Promise.reject(new SwitchboardError(ErrorCodes.PROVIDER_ERROR, 'elevenlabs refused the request (HTTP 503)', { retryable: true }));

/** Speech from `drivers` in order, with circuits opening after `failures` failures. */
const failover = (drivers: readonly (Driver & { tts: SpeechSynthesis })[], timeoutMs: number, events = new RuntimeEvents(), failures = 5, halfOpenAfterMs = 30_000) =>
  speechWithFailover(drivers, timeoutMs, speechCircuits({ failures, halfOpenAfterMs, events }), events);

describe('speech with failover', () => {
  it('speaks with the first provider while it answers; the next is not asked', async () => {
    const first = ttsDriver('elevenlabs', () => audio(1));
    const second = ttsDriver('openai', () => audio(2));
    const speech = failover([first.driver, second.driver], 1000);
    const result = await speech.synthesize({ text: 'Hello', format: 'ulaw_8000', voice: 'Rachel' });
    assert.equal(result.audio[0], 1);
    assert.deepEqual(first.asked, [{ text: 'Hello', format: 'ulaw_8000', voice: 'Rachel' }]);
    assert.equal(second.asked.length, 0);
    assert.deepEqual(await speech.voices(), [{ id: 'elevenlabs-voice', name: 'elevenlabs' }]);
  });

  it('speaks a failed turn with the next provider in its own voice, and asks the first again next turn', async () => {
    let down = true;
    const first = ttsDriver('elevenlabs', () => (down ? fails() : audio(1)));
    const second = ttsDriver('openai', () => audio(2));
    const events = new RuntimeEvents();
    const failovers: unknown[] = [];
    events.on('providerFailover', (e) => failovers.push(e));
    const speech = failover([first.driver, second.driver], 1000, events);
    const result = await speech.synthesize({ text: 'Hello', format: 'ulaw_8000', voice: 'Rachel' });
    assert.equal(result.audio[0], 2);
    assert.deepEqual(second.asked, [{ text: 'Hello', format: 'ulaw_8000' }], "the first provider's voice is not passed on");
    assert.deepEqual(failovers, [{ channel: 'tts', from: 'elevenlabs', to: 'openai' }]);
    down = false;
    assert.equal((await speech.synthesize({ text: 'Again', format: 'ulaw_8000' })).audio[0], 1);
    assert.equal(first.asked.length, 2);
    assert.equal(second.asked.length, 1);
  });

  it('goes on when the first gives no speech in time', async () => {
    const first = ttsDriver('elevenlabs', () => new Promise<SynthesizedAudio>((resolve) => setTimeout(() => void audio(1).then(resolve), 2000).unref()));
    const second = ttsDriver('openai', () => audio(2));
    const started = Date.now();
    const result = await failover([first.driver, second.driver], 100).synthesize({ text: 'Hello', format: 'ulaw_8000' });
    assert.equal(result.audio[0], 2);
    assert.ok(Date.now() - started < 1500, 'the slow provider is not waited for');
  });

  it('fails with the last provider when every one fails, and does not fail over text none can say', async () => {
    const first = ttsDriver('elevenlabs', fails);
    const second = ttsDriver('openai', () => Promise.reject(new SwitchboardError(ErrorCodes.PROVIDER_ERROR, 'openai refused the request (HTTP 500)', { retryable: true })));
    const speech = failover([first.driver, second.driver], 1000);
    await assert.rejects(speech.synthesize({ text: 'Hello', format: 'ulaw_8000' }), /openai refused/);
    const invalid = ttsDriver('elevenlabs', () => Promise.reject(new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'There is no text to synthesise.')));
    const other = ttsDriver('openai', () => audio(2));
    await assert.rejects(failover([invalid.driver, other.driver], 1000).synthesize({ text: ' ', format: 'ulaw_8000' }), { code: 'VALIDATION_FAILED' });
    assert.equal(other.asked.length, 0);
  });

  it('skips a provider whose circuit opened after consecutive failures or time-outs, until its half-open probe', async () => {
    let hanging = true;
    const first = ttsDriver('elevenlabs', () => (hanging ? new Promise<SynthesizedAudio>(() => undefined) : audio(1)));
    const second = ttsDriver('openai', () => audio(2));
    const events = new RuntimeEvents();
    const circuit: string[] = [];
    events.on('providerCircuit', ({ provider, state }) => circuit.push(`${provider} ${state}`));
    const speech = failover([first.driver, second.driver], 50, events, 2, 200);
    for (let i = 0; i < 2; i++) assert.equal((await speech.synthesize({ text: `turn ${i}`, format: 'ulaw_8000' })).audio[0], 2);
    assert.deepEqual(circuit, ['elevenlabs open']);
    for (let i = 2; i < 6; i++) assert.equal((await speech.synthesize({ text: `turn ${i}`, format: 'ulaw_8000' })).audio[0], 2);
    assert.equal(first.asked.length, 2, 'the open circuit keeps turns from the hanging provider');
    hanging = false;
    await eventually(async () => ((await speech.synthesize({ text: 'probe', format: 'ulaw_8000' })).audio[0] === 1 ? true : undefined), { timeoutMs: 5000, intervalMs: 50, message: 'the half-open probe to reach the first provider again' });
    assert.deepEqual(circuit, ['elevenlabs open', 'elevenlabs half-open', 'elevenlabs closed']);
    assert.equal((await speech.synthesize({ text: 'after', format: 'ulaw_8000' })).audio[0], 1);
  });
});
