import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeMulaw, speechDurationMs, startSimulator, type Simulator } from '@switchboard/provider-simulator';
import type { Driver } from '@switchboard/sdk';
import { describeDriverConformance } from '@switchboard/sdk/testing';
import driver, { DEFAULT_MODEL_ID, DEFAULT_VOICE_ID, type ElevenLabsSettings } from '../src/index.js';

const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };
const settingsOf = (s: Simulator): ElevenLabsSettings => ({ apiKey: s.credentials.elevenlabs.apiKey, baseUrl: s.baseUrls.elevenlabs });

let sim: Simulator;

describeDriverConformance({
  module: driver,
  before: async () => {
    sim = await startSimulator({ statusCallbacks: false });
  },
  after: () => sim.close(),
  settings: () => settingsOf(sim),
  wrongCredentials: () => ({ ...settingsOf(sim), apiKey: 'sk_wrong' }),
  invalidSettings: [
    {},
    { apiKey: '' },
    { apiKey: 'sk_x', baseUrl: 'ftp://example.com' },
    { apiKey: 'sk_x', defaultVoiceId: 'too-short' },
    { apiKey: 'sk_x', modelId: '' },
    { apiKey: 'sk_x', timeoutSeconds: 0 },
    { apiKey: 'sk_x', unknown: true },
  ],
  injectFault: (status) => sim.faults.add({ provider: 'elevenlabs', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  tts: { formats: ['ulaw_8000', 'pcm_8000', 'pcm_16000', 'pcm_24000'] },
});

describe('elevenlabs driver against the simulator', () => {
  let s: Simulator;
  let d: Driver;

  before(async () => {
    s = await startSimulator({ statusCallbacks: false });
    d = await driver.create(settingsOf(s), context);
  });
  after(async () => {
    await d.close?.();
    await s.close();
  });

  it('asks for the format by name, with the default voice and model, and returns speech of the right length', async () => {
    const text = 'Your table is booked for eight.';
    const result = await d.tts!.synthesize({ text, format: 'ulaw_8000' });
    assert.equal(result.audio.length, (8000 * speechDurationMs(text)) / 1000);
    assert.ok(decodeMulaw(result.audio).some((sample) => Math.abs(sample) > 1000), 'speech, not silence');
    const request = s.requests('elevenlabs').findLast((r) => r.path.includes('/v1/text-to-speech/'));
    assert.equal(request?.path, `/elevenlabs/v1/text-to-speech/${DEFAULT_VOICE_ID}`);
    assert.equal(request?.query['output_format'], 'ulaw_8000');
    assert.deepEqual(request?.body, { text, model_id: DEFAULT_MODEL_ID });
  });

  it('uses the requested voice, and passes the language to a model that takes one', async () => {
    const voice = 'pNInz6obpgDQGcFmaJgB';
    const result = await d.tts!.synthesize({ text: 'Hola', voice, format: 'pcm_16000', language: 'es-ES' });
    assert.equal(result.sampleRate, 16000);
    const request = s.requests('elevenlabs').findLast((r) => r.path.includes('/v1/text-to-speech/'));
    assert.equal(request?.path, `/elevenlabs/v1/text-to-speech/${voice}`);
    assert.equal((request?.body as { language_code?: string }).language_code, 'es');
  });

  it('leaves the language out for a model that refuses language_code', async () => {
    const multilingual = await driver.create({ ...settingsOf(s), modelId: 'eleven_multilingual_v2', defaultVoiceId: 'JBFqnCBsd6RMkjVDRZzb' }, context);
    await multilingual.tts!.synthesize({ text: 'Bonjour', format: 'pcm_24000', language: 'fr' });
    const request = s.requests('elevenlabs').findLast((r) => r.path.includes('/v1/text-to-speech/'));
    assert.equal(request?.path, '/elevenlabs/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb');
    assert.deepEqual(request?.body, { text: 'Bonjour', model_id: 'eleven_multilingual_v2' });
  });

  it('lists the premade voices by id and name', async () => {
    const voices = await d.tts!.voices();
    assert.ok(voices.some((v) => v.id === DEFAULT_VOICE_ID && v.name === 'Rachel'));
  });

  it('reports the characters left in health', async () => {
    const health = await d.health!();
    assert.equal(health.ok, true);
    assert.match(health.message, /creator subscription: \d+ of 100000 characters left/);
  });

  it('refuses empty text and an unknown voice with coded errors', async () => {
    await assert.rejects(d.tts!.synthesize({ text: '  ', format: 'ulaw_8000' }), { code: 'VALIDATION_FAILED' });
    await assert.rejects(d.tts!.synthesize({ text: 'x', voice: 'nope', format: 'ulaw_8000' }), { code: 'PROVIDER_ERROR', retryable: false });
  });

  it('fails fast: a 503 is one request, not the SDK retrying', async () => {
    const before = s.requests('elevenlabs').length;
    s.faults.add({ provider: 'elevenlabs', status: 503, times: 3 });
    try {
      const started = Date.now();
      await assert.rejects(d.tts!.synthesize({ text: 'x', format: 'ulaw_8000' }), { code: 'PROVIDER_ERROR', retryable: true });
      assert.ok(Date.now() - started < 900, 'no retry back-off');
      assert.equal(s.requests('elevenlabs').length - before, 1);
    } finally {
      s.faults.clear();
    }
  });

  it('maps a network failure to a retryable PROVIDER_ERROR', async () => {
    // A short timeout: the SDK's timer outlives a failed fetch (see src/client.ts).
    const offline = await driver.create({ ...settingsOf(s), baseUrl: 'http://127.0.0.1:1', timeoutSeconds: 0.5 }, context);
    await assert.rejects(offline.tts!.synthesize({ text: 'x', format: 'ulaw_8000' }), { code: 'PROVIDER_ERROR', retryable: true });
    assert.equal((await offline.health!()).ok, false);
  });
});
