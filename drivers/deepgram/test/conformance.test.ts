import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeMulaw, pcm16le, startSimulator, synthesizeSpeech, type Simulator } from '@switchboard/provider-simulator';
import type { Driver } from '@switchboard/sdk';
import { describeDriverConformance } from '@switchboard/sdk/testing';
import driver, { environmentOf, type DeepgramSettings } from '../src/index.js';

const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };
const settingsOf = (s: Simulator, extra: Partial<DeepgramSettings> = {}): DeepgramSettings => ({ apiKey: s.credentials.deepgram.apiKey, baseUrl: s.baseUrls.deepgram, ...extra });

const GREETING = 'Hi, I am calling about my booking.';
const FOLLOW_UP = 'Can we make it eight?';
const silence = (ms: number): Buffer => Buffer.alloc(ms * 8, 0xff);
const spoken = (text: string): Buffer => encodeMulaw(synthesizeSpeech(text, 8000));

/** Writes audio in 20 ms chunks, as the media stream delivers it. */
function feed(stream: { write(audio: Buffer): void }, audio: Buffer, chunk = 160): void {
  for (let at = 0; at < audio.length; at += chunk) stream.write(audio.subarray(at, at + chunk));
}

let sim: Simulator;

describeDriverConformance({
  module: driver,
  before: async () => {
    sim = await startSimulator({ statusCallbacks: false });
    sim.deepgram.registerPhrase(GREETING);
  },
  after: () => sim.close(),
  settings: () => settingsOf(sim),
  wrongCredentials: () => settingsOf(sim, { apiKey: 'not-the-key' }),
  invalidSettings: [
    {},
    { apiKey: '' },
    { apiKey: 'k', baseUrl: 'ftp://example.com' },
    { apiKey: 'k', endpointingMs: 5 },
    { apiKey: 'k', language: 'english please' },
    { apiKey: 'k', timeoutSeconds: 0 },
    { apiKey: 'k', unknown: true },
  ],
  injectFault: (status) => sim.faults.add({ provider: 'deepgram', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  stt: { utterance: () => ({ encoding: 'mulaw', sampleRate: 8000, audio: Buffer.concat([silence(200), spoken(GREETING), silence(100)]), expect: GREETING }) },
});

describe('deepgram driver against the simulator', () => {
  let s: Simulator;
  let d: Driver;

  before(async () => {
    s = await startSimulator({ statusCallbacks: false });
    s.deepgram.registerPhrase(GREETING);
    s.deepgram.registerPhrase(FOLLOW_UP);
    d = await driver.create(settingsOf(s, { finalizeTimeoutMs: 200, language: 'en-US' }), context);
  });
  after(async () => {
    await d.close?.();
    await s.close();
  });

  it('opens /v1/listen with the documented query and Authorization: Token', async () => {
    const stream = await d.stt!.open({ encoding: 'mulaw', sampleRate: 8000 });
    await stream.close();
    const request = s.requests('deepgram').findLast((r) => r.path === '/deepgram/v1/listen');
    assert.equal(request?.status, 101);
    assert.equal(request?.headers.authorization, `Token ${s.credentials.deepgram.apiKey}`);
    assert.deepEqual(request?.query, {
      model: 'nova-3',
      encoding: 'mulaw',
      sample_rate: '8000',
      channels: '1',
      interim_results: 'true',
      punctuate: 'true',
      endpointing: '300',
      language: 'en-US',
    });
  });

  it('finalize joins the final segments of the turn: one ended by a pause, one cut by Finalize', async () => {
    const stream = await d.stt!.open({ encoding: 'mulaw', sampleRate: 8000, language: 'en-GB' });
    feed(stream, Buffer.concat([silence(100), spoken(GREETING), silence(500), spoken(FOLLOW_UP), silence(60)]));
    assert.equal(await stream.finalize(), `${GREETING} ${FOLLOW_UP}`);
    // Nothing said since: Deepgram does not answer, and finalize resolves '' after finalizeTimeoutMs.
    const started = Date.now();
    assert.equal(await stream.finalize(), '');
    assert.ok(Date.now() - started >= 150, 'waited for the finalize timeout');
    await stream.close();
    const session = s.deepgram.sessions().at(-1)!;
    for (let i = 0; i < 50 && session.closeCode === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(session.options.language, 'en-GB');
    assert.deepEqual(session.controls, ['Finalize', 'Finalize', 'CloseStream']);
    assert.equal(session.closeCode, 1000);
  });

  it('sends call audio in 200 ms chunks, and what is held before a Finalize', async () => {
    const stream = await d.stt!.open({ encoding: 'mulaw', sampleRate: 8000 });
    const audio = Buffer.concat([silence(100), spoken(GREETING), silence(500)]);
    // 20 ms frames (160 bytes), held until 200 ms (1,600 bytes) are there; the rest goes before the Finalize.
    feed(stream, audio);
    assert.equal(await stream.finalize(), GREETING);
    const session = s.deepgram.sessions().at(-1)!;
    assert.equal(session.audioBytes, audio.length);
    assert.equal(session.audioMessages, Math.ceil(audio.length / 1600));
    await stream.close();
  });

  it('hears linear16 at 16 kHz', async () => {
    const stream = await d.stt!.open({ encoding: 'linear16', sampleRate: 16000 });
    feed(stream, Buffer.concat([pcm16le(synthesizeSpeech(FOLLOW_UP, 16000)), Buffer.alloc(3200)]), 640);
    assert.equal(await stream.finalize(), FOLLOW_UP);
    await stream.close();
  });

  it('resolves a pending finalize with what was heard when the stream is closed', async () => {
    const stream = await d.stt!.open({ encoding: 'mulaw', sampleRate: 8000 });
    feed(stream, Buffer.concat([spoken(GREETING), silence(400)]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pending = stream.finalize();
    await stream.close();
    assert.equal(await pending, GREETING);
    assert.equal(await stream.finalize(), '', 'a closed stream has nothing more');
    stream.write(spoken(GREETING)); // ignored, not thrown
  });

  it('reports a dropped stream: pending finalize resolves, later ones reject with a retryable PROVIDER_ERROR', async () => {
    const other = await startSimulator({ statusCallbacks: false });
    const dropped = await driver.create(settingsOf(other), context);
    try {
      const stream = await dropped.stt!.open({ encoding: 'mulaw', sampleRate: 8000 });
      feed(stream, silence(200));
      await other.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await assert.rejects(stream.finalize(), { code: 'PROVIDER_ERROR', retryable: true });
      await stream.close();
    } finally {
      await dropped.close?.();
    }
  });

  it('maps an unreachable provider to a retryable PROVIDER_ERROR, and health to ok: false', async () => {
    // A short timeout: the SDK's timer outlives a failed fetch (see src/client.ts).
    const offline = await driver.create({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1', timeoutSeconds: 0.5 }, context);
    await assert.rejects(offline.stt!.open({ encoding: 'mulaw', sampleRate: 8000 }), { code: 'PROVIDER_ERROR', retryable: true });
    const health = await offline.health!();
    assert.equal(health.ok, false);
    assert.match(health.message, /could not be reached/);
  });

  it('closes every open stream when the driver closes', async () => {
    const own = await driver.create(settingsOf(s), context);
    await own.stt!.open({ encoding: 'mulaw', sampleRate: 8000 });
    await own.stt!.open({ encoding: 'mulaw', sampleRate: 8000 });
    const before = s.deepgram.sessions().length;
    await own.close!();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const sessions = s.deepgram.sessions().slice(before - 2);
    assert.deepEqual(sessions.map((x) => [x.controls.at(-1), x.closeCode]), [['CloseStream', 1000], ['CloseStream', 1000]]);
  });
});

describe('environmentOf', () => {
  it('derives REST and live origins from one base URL, keeping its path', () => {
    assert.deepEqual(environmentOf('http://127.0.0.1:4010/deepgram/'), {
      base: 'http://127.0.0.1:4010/deepgram',
      production: 'ws://127.0.0.1:4010/deepgram',
      agent: 'ws://127.0.0.1:4010/deepgram',
      agentRest: 'http://127.0.0.1:4010/deepgram',
    });
    assert.equal(environmentOf('wss://dg.example.com')?.base, 'https://dg.example.com');
    assert.equal(environmentOf(undefined), undefined);
  });
});
