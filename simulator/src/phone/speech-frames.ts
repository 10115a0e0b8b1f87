import { synthesizeSpeech } from '../audio.js';
import { encodeMulaw, mulawToLinear } from '../g711.js';

/** One Media Streams frame: 20 ms of 8 kHz μ-law. */
export const FRAME_MS = 20;
export const FRAME_BYTES = 160;
/** μ-law 0xFF is digital silence. */
export const SILENCE_BYTE = 0xff;
/** Base64 payload of a silent frame, shared by every stream. */
export const SILENCE_PAYLOAD = Buffer.alloc(FRAME_BYTES, SILENCE_BYTE).toString('base64');

const CACHE_LIMIT = 512;
const cache = new Map<string, readonly string[]>();

/**
 * The base64 payloads of the 20 ms μ-law frames that speak `text` (the simulator's synthetic
 * speech, padded with silence to whole frames). Cached by text, so a thousand phones saying the
 * same line synthesise and encode it once.
 */
export function speechFrames(text: string): readonly string[] {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const mulaw = encodeMulaw(synthesizeSpeech(text, 8000));
  const count = Math.ceil(mulaw.length / FRAME_BYTES);
  const padded = Buffer.alloc(count * FRAME_BYTES, SILENCE_BYTE);
  mulaw.copy(padded);
  const frames: string[] = [];
  for (let i = 0; i < count; i++) frames.push(padded.toString('base64', i * FRAME_BYTES, (i + 1) * FRAME_BYTES));
  const frozen = Object.freeze(frames);
  cache.set(text, frozen);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return frozen;
}

/** Squares of the linear value of each μ-law byte, for cheap level measurement. */
const SQUARE = new Float64Array(256).map((_, byte) => mulawToLinear(byte) ** 2);
/** RMS (16-bit scale) above which a 20 ms block counts as speech: about -40 dBFS. */
const SPEECH_RMS = 330;

/** How many ms of `audio` (μ-law) carry speech rather than silence, in 20 ms blocks. */
export function speechMs(audio: Uint8Array): number {
  let ms = 0;
  for (let start = 0; start < audio.length; start += FRAME_BYTES) {
    const end = Math.min(audio.length, start + FRAME_BYTES);
    let sum = 0;
    for (let i = start; i < end; i++) sum += SQUARE[audio[i]!]!;
    if (Math.sqrt(sum / (end - start)) >= SPEECH_RMS) ms += ((end - start) * 1000) / 8000;
  }
  return ms;
}
