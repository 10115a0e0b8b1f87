import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeMulaw, speechDurationMs, startSimulator, type Simulator } from '@switchboard/provider-simulator';
import type { Driver } from '@switchboard/sdk';
import { describeDriverConformance } from '@switchboard/sdk/testing';
import driver, { DEFAULT_MODEL, DEFAULT_VOICE, type OpenAiSettings } from '../src/index.js';
import { downsample } from '../src/pcm.js';

const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };
const settingsOf = (s: Simulator): OpenAiSettings => ({ apiKey: s.credentials.openai.apiKey, baseUrl: s.baseUrls.openai });

let sim: Simulator;

describeDriverConformance({
  module: driver,
  before: async () => {
    sim = await startSimulator({ statusCallbacks: false });
  },
  after: () => sim.close(),
  settings: () => settingsOf(sim),
  wrongCredentials: () => ({ ...settingsOf(sim), apiKey: 'sk-wrong' }),
  invalidSettings: [
    {},
    { apiKey: '' },
    { apiKey: 'sk-x', baseUrl: 'ftp://example.com' },
    { apiKey: 'sk-x', model: '' },
    { apiKey: 'sk-x', voice: '' },
    { apiKey: 'sk-x', timeoutSeconds: 0 },
    { apiKey: 'sk-x', unknown: true },
  ],
  injectFault: (status) => sim.faults.add({ provider: 'openai', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  tts: { formats: ['ulaw_8000', 'pcm_8000', 'pcm_16000', 'pcm_24000'] },
});

describe('openai driver against the simulator', () => {
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

  const lastSpeech = () => s.requests('openai').findLast((r) => r.path === '/openai/v1/audio/speech');

  it('asks for pcm with the default model and voice, and returns call audio of the right length', async () => {
    const text = 'Your table is booked for eight.';
    const result = await d.tts!.synthesize({ text, format: 'ulaw_8000' });
    assert.equal(result.sampleRate, 8000);
    assert.equal(result.audio.length, (8000 * speechDurationMs(text)) / 1000);
    assert.ok(decodeMulaw(result.audio).some((sample) => Math.abs(sample) > 1000), 'speech, not silence');
    assert.deepEqual(lastSpeech()?.body, { model: DEFAULT_MODEL, voice: DEFAULT_VOICE, input: text, response_format: 'pcm' });
    assert.match(String(lastSpeech()?.headers['authorization']), /^Bearer sk-proj-/);
  });

  it('keeps 24 kHz as OpenAI sends it and resamples to 16 kHz', async () => {
    const text = 'Hello there';
    const full = await d.tts!.synthesize({ text, format: 'pcm_24000' });
    const wide = await d.tts!.synthesize({ text, format: 'pcm_16000' });
    assert.equal(full.audio.length, 2 * ((24000 * speechDurationMs(text)) / 1000));
    assert.equal(wide.audio.length, 2 * ((16000 * speechDurationMs(text)) / 1000));
    assert.equal(wide.sampleRate, 16000);
  });

  it('uses the requested voice, or the configured one, and the configured model', async () => {
    await d.tts!.synthesize({ text: 'Hola', voice: 'coral', format: 'pcm_16000', language: 'es-ES' });
    assert.equal((lastSpeech()?.body as { voice?: string }).voice, 'coral');
    const configured = await driver.create({ ...settingsOf(s), model: 'tts-1', voice: 'sage' }, context);
    await configured.tts!.synthesize({ text: 'Bonjour', format: 'pcm_24000' });
    assert.deepEqual(lastSpeech()?.body, { model: 'tts-1', voice: 'sage', input: 'Bonjour', response_format: 'pcm' });
  });

  it('lists the built-in voices', async () => {
    const voices = await d.tts!.voices();
    assert.ok(voices.some((v) => v.id === 'alloy' && v.name === 'Alloy'));
  });

  it('reports in health whether the model is offered', async () => {
    assert.deepEqual(await d.health!(), { ok: true, message: `OpenAI offers 4 models, ${DEFAULT_MODEL} among them.` });
    const unknown = await driver.create({ ...settingsOf(s), model: 'tts-9' }, context);
    assert.equal((await unknown.health!()).ok, false);
    const wrong = await driver.create({ ...settingsOf(s), apiKey: 'sk-wrong' }, context);
    assert.deepEqual(await wrong.health!(), { ok: false, message: 'OpenAI refused the API key (HTTP 401).' });
  });

  it('refuses empty text and an unknown voice with coded errors', async () => {
    await assert.rejects(d.tts!.synthesize({ text: '  ', format: 'ulaw_8000' }), { code: 'VALIDATION_FAILED' });
    await assert.rejects(d.tts!.synthesize({ text: 'x', voice: 'nope', format: 'ulaw_8000' }), { code: 'PROVIDER_ERROR', retryable: false });
  });

  it('fails fast: a 503 is one request, not the SDK retrying', async () => {
    const before = s.requests('openai').length;
    s.faults.add({ provider: 'openai', status: 503, times: 3 });
    try {
      const started = Date.now();
      await assert.rejects(d.tts!.synthesize({ text: 'x', format: 'ulaw_8000' }), { code: 'PROVIDER_ERROR', retryable: true });
      assert.ok(Date.now() - started < 900, 'no retry back-off');
      assert.equal(s.requests('openai').length - before, 1);
    } finally {
      s.faults.clear();
    }
  });

  it('maps a network failure to a retryable PROVIDER_ERROR', async () => {
    const offline = await driver.create({ ...settingsOf(s), baseUrl: 'http://127.0.0.1:1/v1', timeoutSeconds: 0.5 }, context);
    await assert.rejects(offline.tts!.synthesize({ text: 'x', format: 'ulaw_8000' }), { code: 'PROVIDER_ERROR', retryable: true });
    assert.equal((await offline.health!()).ok, false);
  });

  it('downsamples without passing what lies above the new Nyquist frequency', () => {
    const tone = (hz: number) => Int16Array.from({ length: 2400 }, (_, i) => Math.round(10_000 * Math.sin((2 * Math.PI * hz * i) / 24_000)));
    const peak = (samples: Int16Array) => Math.max(...Array.from(samples.subarray(100, -100), Math.abs));
    assert.ok(peak(downsample(tone(1000), 24_000, 8000)) > 9000, '1 kHz passes to 8 kHz');
    assert.ok(peak(downsample(tone(6000), 24_000, 8000)) < 500, '6 kHz is filtered out at 8 kHz');
    assert.ok(peak(downsample(tone(3000), 24_000, 16_000)) > 9000, '3 kHz passes to 16 kHz');
  });
});
