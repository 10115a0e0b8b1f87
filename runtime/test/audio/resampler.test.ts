import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Resampler, resample, resamplingKernel } from '../../src/audio/resampler.js';
import { amplitudeAt, concat, db, noise, snrDb, tone } from './signals.js';

const PAIRS = [
  [8000, 16000],
  [16000, 8000],
  [8000, 24000],
  [24000, 8000],
  [16000, 24000],
  [24000, 16000],
] as const;

/** Gain in dB of a 250 ms `frequency` tone through a streaming resampler (first 20 ms skipped: filter warm-up). */
function gainDb(from: number, to: number, frequency: number, measuredAt = frequency): number {
  const input = tone(frequency, from, from / 4, 10_000);
  const output = new Resampler(from, to).process(input);
  const skip = to / 50;
  return db(amplitudeAt(output, measuredAt, to, skip) / amplitudeAt(input, frequency, from, skip));
}

describe('polyphase resampler', () => {
  for (const [from, to] of PAIRS) {
    it(`${from} → ${to} Hz passes the telephone band within 0.1 dB`, () => {
      for (const f of [200, 1000, 2500, 3400]) {
        const gain = gainDb(from, to, f);
        assert.ok(Math.abs(gain) < 0.1, `${f} Hz: ${gain.toFixed(3)} dB`);
      }
    });

    it(`${from} → ${to} Hz gives the same samples chunked as in one call, at exactly the rate ratio`, () => {
      const input = concat(tone(700, from, from / 2), noise(from / 2, 3000, 7));
      const whole = new Resampler(from, to).process(input);
      assert.equal(whole.length, (input.length * to) / from);
      const chunked = new Resampler(from, to);
      const parts: Int16Array[] = [];
      // Uneven chunk sizes, including 1 and 0, cross every phase of the filter.
      const sizes = [1, 0, 7, 160, 33, 2, 320, 97];
      for (let offset = 0, i = 0; offset < input.length; i++) {
        const size = sizes[i % sizes.length]!;
        parts.push(chunked.process(input.subarray(offset, offset + size)));
        offset += size;
      }
      assert.deepEqual(concat(...parts), whole);
    });
  }

  it('rejects tones above the new Nyquist frequency when going down', () => {
    // 16 → 8 kHz: 6 kHz would alias to 2 kHz; 4.2 kHz to 3.8 kHz.
    for (const f of [4200, 5000, 6000, 7500]) {
      const leaked = gainDb(16000, 8000, f, 8000 - f);
      assert.ok(leaked < -60, `16 → 8 kHz, ${f} Hz leaks at ${leaked.toFixed(1)} dB`);
    }
    for (const f of [4500, 6000, 11000]) {
      const alias = Math.abs(((f + 4000) % 8000) - 4000);
      const leaked = gainDb(24000, 8000, f, alias);
      assert.ok(leaked < -60, `24 → 8 kHz, ${f} Hz leaks at ${leaked.toFixed(1)} dB`);
    }
    const leaked = gainDb(24000, 16000, 10000, 6000);
    assert.ok(leaked < -60, `24 → 16 kHz, 10 kHz leaks at ${leaked.toFixed(1)} dB`);
  });

  it('suppresses images when going up', () => {
    // 8 → 16 kHz: a 1 kHz tone images at 7 kHz; 8 → 24 kHz at 7 and 9 kHz.
    assert.ok(gainDb(8000, 16000, 1000, 7000) < -60);
    assert.ok(gainDb(8000, 24000, 1000, 7000) < -60);
    assert.ok(gainDb(8000, 24000, 1000, 9000) < -60);
    assert.ok(gainDb(16000, 24000, 3000, 13000) < -60);
  });

  it('keeps its filters within budget: at most ~150 multiply-adds per output sample', () => {
    for (const [from, to] of PAIRS) {
      const kernel = resamplingKernel(from, to);
      assert.ok(kernel.taps <= 151, `${from} → ${to}: ${kernel.taps} taps`);
      assert.ok(Number.isInteger(kernel.delay));
    }
  });

  it('resamples a whole clip aligned with its input', () => {
    const at24k = tone(1000, 24000, 24000, 10_000);
    const at8k = resample(at24k, 24000, 8000);
    assert.equal(at8k.length, 8000);
    // Compared with the same tone generated at 8 kHz: delay compensated, so sample for sample.
    const ideal = tone(1000, 8000, 8000, 10_000);
    const snr = snrDb(ideal.subarray(400, 7600), at8k.subarray(400, 7600));
    assert.ok(snr > 50, `SNR ${snr.toFixed(1)} dB`);
  });

  it('primes a stream from history as if it had run all along', () => {
    const input = noise(640, 5000, 3);
    const continuous = new Resampler(8000, 16000);
    continuous.process(input.subarray(0, 320));
    const expected = continuous.process(input.subarray(320));
    const primed = new Resampler(8000, 16000);
    primed.reset(input.subarray(0, 320));
    assert.deepEqual(primed.process(input.subarray(320)), expected);
  });

  it('refuses rates it has no kernel for', () => {
    assert.throws(() => new Resampler(44100, 8000), RangeError);
    assert.throws(() => new Resampler(0, 8000), RangeError);
  });
});
