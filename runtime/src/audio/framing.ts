// Turning synthesized speech into what a Media Streams call plays: 8 kHz μ-law in 20 ms frames.
import type { AudioFormat } from '@switchboard/sdk';
import { MULAW_SILENCE, encodeMulaw } from './g711.js';
import { resample } from './resampler.js';

/** Duration of one call audio frame (ms). */
export const FRAME_MS = 20;
/** Sample rate of call audio (Hz). */
export const CALL_SAMPLE_RATE = 8000;
/** Bytes in one 20 ms frame of 8 kHz μ-law. */
export const MULAW_FRAME_BYTES = (CALL_SAMPLE_RATE * FRAME_MS) / 1000;

/** The sample rate of a PCM format, or null for μ-law. */
export function pcmRate(format: AudioFormat): 8000 | 16000 | 24000 | null {
  switch (format) {
    case 'ulaw_8000':
      return null;
    case 'pcm_8000':
      return 8000;
    case 'pcm_16000':
      return 16000;
    case 'pcm_24000':
      return 24000;
  }
}

/** Whether turning `format` into call audio needs resampling (the expensive part). */
export function needsResampling(format: AudioFormat): boolean {
  const rate = pcmRate(format);
  return rate !== null && rate !== CALL_SAMPLE_RATE;
}

/** Views 16-bit little-endian PCM bytes as samples, copying only when the bytes are misaligned. */
export function pcmSamples(bytes: Uint8Array): Int16Array {
  const count = bytes.length >> 1;
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, count);
  const copy = new Uint8Array(count * 2);
  copy.set(bytes.subarray(0, count * 2));
  return new Int16Array(copy.buffer);
}

/**
 * Converts synthesized audio to 8 kHz μ-law padded with silence to whole frames.
 * PCM at 16 or 24 kHz is low-passed and resampled first.
 */
export function toCallAudio(audio: Uint8Array, format: AudioFormat): Uint8Array {
  const rate = pcmRate(format);
  if (rate === null) return padToFrames(audio);
  const pcm = rate === CALL_SAMPLE_RATE ? pcmSamples(audio) : resample(pcmSamples(audio), rate, CALL_SAMPLE_RATE);
  const out = new Uint8Array(Math.ceil(pcm.length / MULAW_FRAME_BYTES) * MULAW_FRAME_BYTES);
  encodeMulaw(pcm, out.subarray(0, pcm.length));
  out.fill(MULAW_SILENCE, pcm.length);
  return out;
}

function padToFrames(mulaw: Uint8Array, frameBytes: number = MULAW_FRAME_BYTES): Uint8Array {
  const length = Math.ceil(mulaw.length / frameBytes) * frameBytes;
  const out = new Uint8Array(length);
  out.set(mulaw);
  out.fill(MULAW_SILENCE, mulaw.length);
  return out;
}

/**
 * Cuts μ-law call audio into frames of `frameBytes` (default 20 ms): views of `audio`, no copies; a
 * short last frame is padded with silence.
 */
export function splitFrames(audio: Uint8Array, frameBytes: number = MULAW_FRAME_BYTES): Uint8Array[] {
  const whole = audio.length - (audio.length % frameBytes);
  const frames: Uint8Array[] = [];
  for (let offset = 0; offset < whole; offset += frameBytes) frames.push(audio.subarray(offset, offset + frameBytes));
  if (whole < audio.length) frames.push(padToFrames(audio.subarray(whole), frameBytes));
  return frames;
}
