// Speech-like test audio: a voiced source (a few harmonics of a gliding pitch) shaped by a
// per-character envelope, so it has the level, pauses and spectrum that VAD and codecs expect
// from speech, without shipping a speech model.
import { wavFile as writeWav } from '@switchboard/sdk';

/** Milliseconds of audio per character of text. */
export const MS_PER_CHARACTER = 60;
/** Shortest clip, in milliseconds. */
export const MIN_DURATION_MS = 300;

/** Duration the simulator speaks `text` for: 60 ms a character, at least 300 ms. */
export function speechDurationMs(text: string): number {
  return Math.max(MIN_DURATION_MS, [...text].length * MS_PER_CHARACTER);
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Small seeded PRNG (mulberry32): the same text always gives the same audio. */
function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOWELS = new Set('aeiouyAEIOUYàáâäèéêëìíîïòóôöùúûüあいうえおアイウエオ');
/** Harmonic weights of the voiced source (1st..6th). */
const HARMONICS = [1, 0.62, 0.45, 0.3, 0.2, 0.12];

/** Loudness of a character's slot: vowels loudest, consonants softer and noisier, pauses silent. */
function characterLevel(ch: string): { voiced: number; noise: number } {
  if (/\s/.test(ch)) return { voiced: 0, noise: 0 };
  if (/[.,;:!?…、。！？]/.test(ch)) return { voiced: 0, noise: 0 };
  if (VOWELS.has(ch)) return { voiced: 1, noise: 0.02 };
  if (/[0-9A-Za-z]/.test(ch)) return { voiced: 0.45, noise: 0.12 };
  return { voiced: 0.85, noise: 0.04 };
}

/**
 * Mono 16-bit speech-like audio for `text` at `sampleRate`, `speechDurationMs(text)` long.
 * Peaks stay near a third of full scale, like normalised speech.
 */
export function synthesizeSpeech(text: string, sampleRate: number): Int16Array {
  const durationMs = speechDurationMs(text);
  const total = Math.round((sampleRate * durationMs) / 1000);
  const out = new Int16Array(total);
  const chars = [...(text.length > 0 ? text : 'a')];
  const random = seededRandom(fnv1a(text));
  const basePitch = 105 + random() * 90;
  const samplesPerChar = total / chars.length;
  const levels = chars.map(characterLevel);
  const nyquist = sampleRate / 2;
  const harmonicCount = HARMONICS.length;
  const smoothing = 1 - Math.exp(-1 / (0.012 * sampleRate));
  const normaliser = HARMONICS.reduce((a, b) => a + b, 0);
  let phase = 0;
  let voicedEnv = 0;
  let noiseEnv = 0;
  for (let i = 0; i < total; i++) {
    const t = i / sampleRate;
    const slot = Math.min(chars.length - 1, Math.floor(i / samplesPerChar));
    const level = levels[slot]!;
    // Envelopes glide toward each character's level (~12 ms), so slots join without clicks.
    voicedEnv += (level.voiced - voicedEnv) * smoothing;
    noiseEnv += (level.noise - noiseEnv) * smoothing;
    // Syllable-rate modulation (~4.5 Hz) and a pitch that wavers and falls over the utterance.
    const syllable = 0.55 + 0.45 * Math.sin(Math.PI * 4.5 * t) ** 2;
    const pitch = basePitch * (1 + 0.07 * Math.sin(2 * Math.PI * 0.8 * t) - (0.12 * i) / total);
    phase += (2 * Math.PI * pitch) / sampleRate;
    if (phase > 2 * Math.PI) phase -= 2 * Math.PI;
    // Harmonics by the Chebyshev recurrence sin(kθ) = 2cosθ·sin((k−1)θ) − sin((k−2)θ).
    const s1 = Math.sin(phase);
    const twoCos = 2 * Math.cos(phase);
    let prev = 0;
    let current = s1;
    let voiced = 0;
    for (let k = 1; k <= harmonicCount; k++) {
      if (k * pitch < nyquist) voiced += HARMONICS[k - 1]! * current;
      const next = twoCos * current - prev;
      prev = current;
      current = next;
    }
    const sample = (voicedEnv * syllable * voiced) / normaliser + noiseEnv * (random() * 2 - 1);
    out[i] = Math.round(Math.max(-1, Math.min(1, sample * 0.95)) * 11000);
  }
  return out;
}

/** Raw little-endian 16-bit PCM bytes. */
export function pcm16le(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i]!, i * 2);
  return out;
}

/** A RIFF/WAVE file of 16-bit mono PCM (the sdk's writer, fed this simulator's samples). */
export function wavFile(samples: Int16Array, sampleRate: number): Buffer {
  return writeWav(pcm16le(samples), sampleRate);
}
