import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SILENCE_DB, VoiceActivityDetector, frameFeatures, type VadEvent, type VadOptions } from '../../src/audio/vad.js';
import { concat, mix, noise, speechLike, tone } from './signals.js';

const RATE = 8000;
const FRAME = 160;
const ms = (n: number): number => (n * RATE) / 1000;
const silence = (duration: number): Int16Array => new Int16Array(ms(duration));
/** A quiet line: white noise at about -60 dBFS. */
const lineNoise = (signal: Int16Array, seed = 5): Int16Array => mix(signal, noise(signal.length, 33, seed));

interface Seen {
  readonly event: VadEvent;
  /** Call audio time when the detector reported it. */
  readonly reportedAtMs: number;
}

function detect(signal: Int16Array, options?: VadOptions): Seen[] {
  const vad = new VoiceActivityDetector(options);
  const seen: Seen[] = [];
  for (let i = 0; i + FRAME <= signal.length; i += FRAME) {
    const event = vad.push(frameFeatures(signal, i, i + FRAME), 20);
    if (event) seen.push({ event, reportedAtMs: vad.elapsedMs });
  }
  return seen;
}

describe('frame features', () => {
  it('measures energy in dBFS and zero crossings per sample', () => {
    assert.equal(frameFeatures(new Int16Array(160)).energyDb, SILENCE_DB);
    const square = Int16Array.from({ length: 160 }, (_, i) => (i % 2 ? 32767 : -32767));
    assert.ok(Math.abs(frameFeatures(square).energyDb) < 0.01);
    assert.ok(frameFeatures(square).zeroCrossingRate > 0.99);
    const sine = frameFeatures(tone(200, RATE, 160, 16384));
    assert.ok(Math.abs(sine.energyDb - -9.03) < 0.2, `${sine.energyDb}`); // half scale: -6 dB, sine: -3 dB
    assert.ok(Math.abs(sine.zeroCrossingRate - 0.05) < 0.01);
    const white = frameFeatures(noise(1600, 1000));
    assert.ok(white.zeroCrossingRate > 0.4 && white.zeroCrossingRate < 0.6);
  });
});

describe('voice activity detection', () => {
  it('reports speech within 100 ms of its start and its end after the hangover', () => {
    const seen = detect(lineNoise(concat(silence(1000), speechLike(ms(1500)), silence(1500))));
    assert.equal(seen.length, 2, JSON.stringify(seen));
    const [start, end] = seen as [Seen, Seen];
    assert.equal(start.event.type, 'speech-start');
    assert.ok(Math.abs(start.event.atMs - 1000) <= 20, `start at ${start.event.atMs}`);
    assert.ok(start.reportedAtMs - 1000 <= 100, `start reported at ${start.reportedAtMs}`);
    assert.equal(end.event.type, 'speech-end');
    assert.ok(Math.abs(end.event.atMs - 2500) <= 40, `end at ${end.event.atMs}`);
    assert.equal(end.reportedAtMs, end.event.atMs + 700);
  });

  it('keeps one utterance across pauses shorter than the hangover', () => {
    const words = concat(silence(500), speechLike(ms(600)), silence(400), speechLike(ms(500)), silence(1200));
    const seen = detect(lineNoise(words));
    assert.deepEqual(seen.map((s) => s.event.type), ['speech-start', 'speech-end']);
    assert.ok(seen[1]!.event.atMs >= 1950, `ended at ${seen[1]!.event.atMs}`);
  });

  it('takes its hangover from the options', () => {
    const words = lineNoise(concat(silence(500), speechLike(ms(600)), silence(400), speechLike(ms(500)), silence(1200)));
    const short = detect(words, { hangoverMs: 300 });
    assert.deepEqual(short.map((s) => s.event.type), ['speech-start', 'speech-end', 'speech-start', 'speech-end']);
    assert.equal(short[1]!.reportedAtMs - short[1]!.event.atMs, 300);
  });

  it('ignores clicks shorter than the minimum speech duration', () => {
    const click = tone(500, RATE, ms(40), 20_000);
    const seen = detect(lineNoise(concat(silence(500), click, silence(500), click, silence(500))));
    assert.deepEqual(seen, []);
    // The same burst counts once it lasts longer than minSpeechMs.
    const long = detect(lineNoise(concat(silence(500), tone(500, RATE, ms(200), 20_000), silence(1000))));
    assert.deepEqual(long.map((s) => s.event.type), ['speech-start', 'speech-end']);
  });

  it('stays silent on steady noise, loud or quiet, and on a sudden burst of noise', () => {
    assert.deepEqual(detect(noise(ms(3000), 33)), []);
    assert.deepEqual(detect(noise(ms(3000), 1000)), []); // about -30 dBFS
    assert.deepEqual(detect(concat(noise(ms(1000), 33), noise(ms(2000), 1500, 9))), []);
  });

  it('still hears speech over steady background noise', () => {
    const background = noise(ms(3500), 300, 11); // about -40 dBFS
    const seen = detect(mix(concat(silence(1000), speechLike(ms(1000)), silence(1500)), background));
    assert.deepEqual(seen.map((s) => s.event.type), ['speech-start', 'speech-end']);
    assert.ok(seen[0]!.reportedAtMs <= 1100);
  });

  it('ends an utterance that outlasts maxUtteranceMs, and on finish()', () => {
    const seen = detect(lineNoise(concat(silence(200), speechLike(ms(3000)))), { maxUtteranceMs: 1000 });
    assert.equal(seen[1]?.event.type, 'speech-end');
    assert.ok(seen[1]!.reportedAtMs <= 1220);
    const vad = new VoiceActivityDetector();
    const speech = speechLike(ms(500));
    for (let i = 0; i < speech.length; i += FRAME) vad.push(frameFeatures(speech, i, i + FRAME), 20);
    assert.equal(vad.speaking, true);
    assert.equal(vad.finish()?.type, 'speech-end');
    assert.equal(vad.speaking, false);
    assert.equal(vad.finish(), null);
  });
});
