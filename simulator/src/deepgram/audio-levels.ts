import { pcm16le } from '../audio.js';
import { encodeMulaw, mulawToLinear } from '../g711.js';

/** Audio is measured in 20 ms frames, as telephony carries it. */
export const FRAME_MS = 20;
/** RMS (16-bit scale) from which a frame counts as speech: about -40 dBFS, well above line noise. */
export const SPEECH_RMS = 300;

/** The encodings Deepgram's live API takes raw (and the simulator understands). */
export type RawEncoding = 'mulaw' | 'linear16';

const MULAW_SQUARES = new Float64Array(256).map((_, byte) => mulawToLinear(byte) ** 2);

/**
 * Cuts raw audio into 20 ms frames and reports each frame's RMS level. Bytes that do not fill a
 * frame wait for the next chunk, so frames line up however the client splits its writes.
 */
export class FrameMeter {
  readonly frameBytes: number;
  readonly #encoding: RawEncoding;
  #pending: Buffer = Buffer.alloc(0);

  constructor(encoding: RawEncoding, sampleRate: number) {
    this.#encoding = encoding;
    const samples = Math.round((sampleRate * FRAME_MS) / 1000);
    this.frameBytes = encoding === 'mulaw' ? samples : samples * 2;
  }

  /** RMS levels of the whole frames completed by `chunk`. */
  push(chunk: Buffer): number[] {
    const data = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const levels: number[] = [];
    let at = 0;
    for (; at + this.frameBytes <= data.length; at += this.frameBytes) levels.push(this.#rms(data, at, at + this.frameBytes));
    this.#pending = Buffer.from(data.subarray(at));
    return levels;
  }

  /** The level of what is left over, as a last (short) frame; empty when nothing is. */
  flush(): number[] {
    const rest = this.#pending;
    this.#pending = Buffer.alloc(0);
    const sampleBytes = this.#encoding === 'mulaw' ? 1 : 2;
    return rest.length >= sampleBytes ? [this.#rms(rest, 0, rest.length - (rest.length % sampleBytes))] : [];
  }

  #rms(data: Buffer, start: number, end: number): number {
    let sum = 0;
    if (this.#encoding === 'mulaw') {
      for (let i = start; i < end; i++) sum += MULAW_SQUARES[data[i]!]!;
      return Math.sqrt(sum / (end - start));
    }
    for (let i = start; i + 1 < end; i += 2) sum += data.readInt16LE(i) ** 2;
    return Math.sqrt(sum / ((end - start) / 2));
  }
}

/** Frame levels of 16-bit samples, after the round trip through `encoding`. */
export function levelsOf(samples: Int16Array, encoding: RawEncoding, sampleRate: number): number[] {
  const meter = new FrameMeter(encoding, sampleRate);
  const bytes = encoding === 'mulaw' ? encodeMulaw(samples) : pcm16le(samples);
  return [...meter.push(bytes), ...meter.flush()];
}

/** The frames from the first to the last speech frame, as dB levels: the shape of an utterance. */
export function speechEnvelope(levels: readonly number[]): number[] {
  const first = levels.findIndex((l) => l >= SPEECH_RMS);
  if (first === -1) return [];
  let last = levels.length - 1;
  while (levels[last]! < SPEECH_RMS) last--;
  return levels.slice(first, last + 1).map(toDb);
}

/** 16-bit RMS as dB (0 for silence). */
export function toDb(rms: number): number {
  return 20 * Math.log10(1 + rms);
}
