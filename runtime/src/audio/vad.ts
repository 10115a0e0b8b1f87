// Energy-based voice activity detection with an adaptive noise floor, a zero-crossing check on
// onsets, a minimum speech duration (clicks are ignored) and a hangover (pauses between words do
// not end the utterance). Features are computed per frame (cheap, stateless: fit for a worker);
// the detector is a tiny state machine per call.
import { mulawToLinear } from './g711.js';

/** What the detector needs from one frame. */
export interface FrameFeatures {
  /** Mean power in dB relative to a full-scale square wave (0 dBFS); -100 for digital silence. */
  readonly energyDb: number;
  /** Sign changes per sample, 0..1; white noise is about 0.5, voiced speech well below. */
  readonly zeroCrossingRate: number;
}

/** Energy floor reported for all-zero frames. */
export const SILENCE_DB = -100;

/** Computes the features of samples [start, end) of `pcm`. */
export function frameFeatures(pcm: Int16Array, start = 0, end = pcm.length): FrameFeatures {
  const n = end - start;
  if (n <= 0) return { energyDb: SILENCE_DB, zeroCrossingRate: 0 };
  let power = 0;
  let crossings = 0;
  let previous = pcm[start]!;
  for (let i = start; i < end; i++) {
    const s = pcm[i]!;
    power += s * s;
    if ((s >= 0) !== (previous >= 0)) crossings++;
    previous = s;
  }
  const mean = power / n / (32768 * 32768);
  return { energyDb: mean > 1e-10 ? 10 * Math.log10(mean) : SILENCE_DB, zeroCrossingRate: crossings / n };
}

// What frameFeatures needs of a decoded μ-law sample, per byte: its square (exact as a double, so
// sums match the decoded path bit for bit) and whether it is ≥ 0 (0x7f and 0xff both decode to 0).
const MULAW_SQUARE = new Float64Array(256);
const MULAW_NON_NEGATIVE = new Uint8Array(256);
for (let code = 0; code < 256; code++) {
  const sample = mulawToLinear(code);
  MULAW_SQUARE[code] = sample * sample;
  MULAW_NON_NEGATIVE[code] = sample >= 0 ? 1 : 0;
}

/**
 * The features of μ-law bytes [start, end), without decoding them: equal to `frameFeatures` of the
 * decoded samples (same sums, same signs), for callers that want VAD and no PCM.
 */
export function mulawFrameFeatures(mulaw: Uint8Array, start = 0, end = mulaw.length): FrameFeatures {
  const n = end - start;
  if (n <= 0) return { energyDb: SILENCE_DB, zeroCrossingRate: 0 };
  let power = 0;
  let crossings = 0;
  let previous = MULAW_NON_NEGATIVE[mulaw[start]!]!;
  for (let i = start; i < end; i++) {
    const code = mulaw[i]!;
    power += MULAW_SQUARE[code]!;
    const sign = MULAW_NON_NEGATIVE[code]!;
    if (sign !== previous) crossings++;
    previous = sign;
  }
  const mean = power / n / (32768 * 32768);
  return { energyDb: mean > 1e-10 ? 10 * Math.log10(mean) : SILENCE_DB, zeroCrossingRate: crossings / n };
}

/** Tuning of a detector; every field has a default that suits 8 kHz telephone audio. */
export interface VadOptions {
  /** How far above the noise floor a frame must be to count as speech (dB). Default 12. */
  thresholdDb?: number;
  /** Frames quieter than this are never speech, whatever the floor (dBFS). Default -50. */
  minEnergyDb?: number;
  /** Onset frames with more zero crossings than this look like noise and do not start speech. Default 0.35. */
  maxOnsetZeroCrossingRate?: number;
  /** Speech shorter than this is a click, not an utterance (ms). Default 60. */
  minSpeechMs?: number;
  /** Silence that must follow speech before the utterance ends (ms). Default 700. */
  hangoverMs?: number;
  /** An utterance longer than this is ended anyway, so a stuck noise cannot hold the turn (ms). Default 30000. */
  maxUtteranceMs?: number;
  /** Noise floor assumed before the first frame (dBFS). Default -70. */
  initialNoiseFloorDb?: number;
}

/** A change the detector reports; times are in ms of call audio since the detector started. */
export type VadEvent =
  | { readonly type: 'speech-start'; readonly atMs: number }
  | { readonly type: 'speech-end'; readonly atMs: number; readonly startedAtMs: number; readonly durationMs: number };

const DEFAULTS: Required<VadOptions> = {
  thresholdDb: 12,
  minEnergyDb: -50,
  maxOnsetZeroCrossingRate: 0.35,
  minSpeechMs: 60,
  hangoverMs: 700,
  maxUtteranceMs: 30_000,
  initialNoiseFloorDb: -70,
};

// Noise floor tracking per frame: falls quickly to quieter frames, rises within about half a
// second outside speech (so steady noise becomes the floor), and creeps up very slowly during
// speech so a lasting noise step ends the utterance eventually instead of never.
const FLOOR_FALL = 0.3;
const FLOOR_RISE = 0.05;
const FLOOR_RISE_IN_SPEECH = 0.002;

type State = 'silence' | 'onset' | 'speech';

/** Detects utterances in one call's audio, frame by frame. */
export class VoiceActivityDetector {
  private readonly options: Required<VadOptions>;
  private state: State = 'silence';
  private floorDb: number;
  private clockMs = 0;
  private onsetAtMs = 0;
  private onsetMs = 0;
  private lastSpeechEndMs = 0;
  private silenceMs = 0;

  constructor(options: VadOptions = {}) {
    this.options = { ...DEFAULTS, ...stripUndefined(options) };
    this.floorDb = this.options.initialNoiseFloorDb;
  }

  /** Whether an utterance is in progress (start reported, end not yet). */
  get speaking(): boolean {
    return this.state === 'speech';
  }

  /** The current noise floor estimate (dBFS). */
  get noiseFloorDb(): number {
    return this.floorDb;
  }

  /** Call audio seen so far (ms). */
  get elapsedMs(): number {
    return this.clockMs;
  }

  /** Feeds one frame of `durationMs` audio; returns the event it completes, if any. */
  push(features: FrameFeatures, durationMs: number): VadEvent | null {
    const o = this.options;
    const frameStart = this.clockMs;
    this.clockMs += durationMs;
    const loud = features.energyDb >= this.floorDb + o.thresholdDb && features.energyDb >= o.minEnergyDb;
    this.trackFloor(features.energyDb);

    switch (this.state) {
      case 'silence':
        if (loud && features.zeroCrossingRate <= o.maxOnsetZeroCrossingRate) {
          this.state = 'onset';
          this.onsetAtMs = frameStart;
          this.onsetMs = durationMs;
          return this.confirmOnset();
        }
        return null;
      case 'onset':
        if (!loud) {
          this.state = 'silence'; // too short: a click
          return null;
        }
        this.onsetMs += durationMs;
        return this.confirmOnset();
      case 'speech':
        if (loud) {
          this.silenceMs = 0;
          this.lastSpeechEndMs = this.clockMs;
        } else {
          this.silenceMs += durationMs;
        }
        if (this.silenceMs >= o.hangoverMs || this.clockMs - this.onsetAtMs >= o.maxUtteranceMs) return this.end();
        return null;
    }
  }

  /** Ends an utterance in progress now (the call hung up, or the caller was cut off). */
  finish(): VadEvent | null {
    return this.state === 'speech' ? this.end() : null;
  }

  private confirmOnset(): VadEvent | null {
    if (this.onsetMs < this.options.minSpeechMs) return null;
    this.state = 'speech';
    this.silenceMs = 0;
    this.lastSpeechEndMs = this.clockMs;
    return { type: 'speech-start', atMs: this.onsetAtMs };
  }

  private end(): VadEvent {
    this.state = 'silence';
    const atMs = this.lastSpeechEndMs;
    return { type: 'speech-end', atMs, startedAtMs: this.onsetAtMs, durationMs: atMs - this.onsetAtMs };
  }

  private trackFloor(energyDb: number): void {
    const delta = energyDb - this.floorDb;
    if (delta < 0) this.floorDb += delta * FLOOR_FALL;
    else this.floorDb += delta * (this.state === 'silence' ? FLOOR_RISE : FLOOR_RISE_IN_SPEECH);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
