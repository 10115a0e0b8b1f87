// OpenAI's `pcm` response is raw 24 kHz 16-bit little-endian mono; Switchboard's formats are that, or
// it at 16 or 8 kHz, or 8 kHz μ-law for telephony. Downsampling runs a windowed-sinc low-pass so the
// upper band does not fold back into the call as noise.
import type { AudioFormat } from '@switchboard/sdk';

/** The rate OpenAI's `pcm` output is sampled at. */
export const OPENAI_PCM_RATE = 24_000;

/** Each format's sample rate. */
export const SAMPLE_RATES: Readonly<Record<AudioFormat, number>> = { ulaw_8000: 8000, pcm_8000: 8000, pcm_16000: 16000, pcm_24000: 24000 };

/** Output samples each side of the filter's centre. */
const HALF_TAPS = 16;
/** Passband edge as a fraction of the output's Nyquist frequency. */
const PASSBAND = 0.9;

/** OpenAI's 24 kHz PCM as `format`; an odd trailing byte (a truncated answer) is dropped. */
export function convertPcm(audio: Buffer, format: AudioFormat): Buffer {
  const samples = new Int16Array(audio.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = audio.readInt16LE(i * 2);
  const rate = SAMPLE_RATES[format];
  const resampled = rate === OPENAI_PCM_RATE ? samples : downsample(samples, OPENAI_PCM_RATE, rate);
  if (format === 'ulaw_8000') return Buffer.from(Array.from(resampled, linearToMulaw));
  return pcm16le(resampled);
}

function pcm16le(samples: Int16Array): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i]!, i * 2);
  return out;
}

/** Low-passes below the output's Nyquist frequency and takes every `from / to`th point between samples. */
export function downsample(input: Int16Array, from: number, to: number): Int16Array {
  const step = from / to;
  const cutoff = (PASSBAND * 0.5) / step; // cycles per input sample
  const width = HALF_TAPS * step; // input samples each side
  const out = new Int16Array(Math.floor((input.length * to) / from));
  for (let n = 0; n < out.length; n++) {
    const t = n * step;
    const first = Math.max(0, Math.ceil(t - width));
    const last = Math.min(input.length - 1, Math.floor(t + width));
    let sum = 0;
    let weights = 0;
    for (let k = first; k <= last; k++) {
      const x = k - t;
      const sinc = x === 0 ? 1 : Math.sin(2 * Math.PI * cutoff * x) / (2 * Math.PI * cutoff * x);
      const w = sinc * (0.5 + 0.5 * Math.cos((Math.PI * x) / width));
      sum += input[k]! * w;
      weights += w;
    }
    out[n] = Math.max(-32768, Math.min(32767, Math.round(sum / weights)));
  }
  return out;
}

/** One 16-bit linear sample as G.711 μ-law (the reference algorithm). */
export function linearToMulaw(sample: number): number {
  const BIAS = 0x84;
  const CLIP = 32635;
  const sign = sample < 0 ? 0x80 : 0;
  const magnitude = Math.min(CLIP, Math.abs(sample)) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}
