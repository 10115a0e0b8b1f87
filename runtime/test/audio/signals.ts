// Synthetic test signals and measurements for the audio tests (deterministic: seeded noise).

/** A seeded uniform generator in [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function clamp16(x: number): number {
  return Math.max(-32768, Math.min(32767, Math.round(x)));
}

/** A sine tone of `samples` samples. */
export function tone(frequency: number, rate: number, samples: number, amplitude = 10_000): Int16Array {
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) out[i] = clamp16(amplitude * Math.sin((2 * Math.PI * frequency * i) / rate));
  return out;
}

/** Gaussian white noise with the given RMS. */
export function noise(samples: number, rms: number, seed = 1): Int16Array {
  const next = random(seed);
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) {
    const g = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    out[i] = clamp16(g * rms);
  }
  return out;
}

/**
 * Speech-like audio: a gliding 110–170 Hz voice with harmonics up to 3.4 kHz (falling 6 dB per
 * octave), shaped by a syllable envelope: 180 ms syllables with 40 ms dips between them.
 */
export function speechLike(samples: number, rate = 8000, peak = 12_000): Int16Array {
  const out = new Int16Array(samples);
  let phase = 0;
  const syllable = 0.18;
  const gap = 0.04;
  for (let i = 0; i < samples; i++) {
    const t = i / rate;
    const f0 = 140 + 30 * Math.sin(2 * Math.PI * 1.3 * t);
    phase += (2 * Math.PI * f0) / rate;
    let voice = 0;
    for (let k = 1; k * f0 < 3400; k++) voice += Math.sin(k * phase) / k;
    const inCycle = t % (syllable + gap);
    const envelope = inCycle < syllable ? 0.15 + 0.85 * Math.sin((Math.PI * inCycle) / syllable) : 0.15;
    out[i] = clamp16((peak / 2) * envelope * voice);
  }
  return out;
}

/** Joins signals end to end. */
export function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Adds b into a (same length or shorter), saturating. */
export function mix(a: Int16Array, b: Int16Array): Int16Array {
  const out = a.slice();
  for (let i = 0; i < b.length && i < out.length; i++) out[i] = clamp16(out[i]! + b[i]!);
  return out;
}

/** RMS of samples [start, end). */
export function rms(x: Int16Array, start = 0, end = x.length): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += x[i]! * x[i]!;
  return Math.sqrt(sum / Math.max(1, end - start));
}

/** Amplitude of the `frequency` component of samples [start, end) (Goertzel), in sample units. */
export function amplitudeAt(x: Int16Array, frequency: number, rate: number, start = 0, end = x.length): number {
  const w = (2 * Math.PI * frequency) / rate;
  const coeff = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (let i = start; i < end; i++) {
    const s0 = x[i]! + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
  return (2 * Math.sqrt(Math.max(0, power))) / (end - start);
}

/** Ratio in dB. */
export function db(ratio: number): number {
  return 20 * Math.log10(ratio);
}

/** Signal-to-noise ratio of `decoded` against `original`, in dB. */
export function snrDb(original: Int16Array, decoded: Int16Array): number {
  let signal = 0;
  let error = 0;
  for (let i = 0; i < original.length; i++) {
    signal += original[i]! * original[i]!;
    const e = original[i]! - decoded[i]!;
    error += e * e;
  }
  return 10 * Math.log10(signal / error);
}

/** Splits samples into consecutive frames of `size` (the last may be shorter). */
export function frames<T extends Int16Array | Uint8Array>(x: T, size: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < x.length; i += size) out.push(x.subarray(i, Math.min(x.length, i + size)) as T);
  return out;
}
