// One call's inbound audio: Media Streams payloads go in, decoded PCM and VAD events come out.
// The call's state (VAD, resampler history) lives here, on the thread that holds the call's socket.
import { SwitchboardError } from '@switchboard/sdk';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { CALL_SAMPLE_RATE } from './framing.js';
import type { BatchMember } from './inbound-batch.js';
import type { InboundRate } from './tasks.js';
import { VoiceActivityDetector, mulawFrameFeatures, type VadEvent, type VadOptions } from './vad.js';

/** Where a call's frames go to be decoded (the pool). */
export interface InboundAudioSink {
  enqueue(call: InboundCallAudio, payload: string | Uint8Array, arrivedAt: number): void;
  forget(call: InboundCallAudio): void;
  /** A VAD-only call handled a frame itself, on arrival (counted in the pool's stats and frame delay). */
  handled(arrivedAt: number): void;
}

/** How one call's inbound audio is delivered. */
export interface InboundCallOptions {
  /** Rate of the PCM handed to `onAudio` (8 kHz is the call's own; 16 kHz suits most STT). Default 8000. */
  sampleRate?: InboundRate;
  /** Voice activity detection tuning. */
  vad?: VadOptions;
  /**
   * Whether the call wants decoded PCM (default true). With `false` only VAD runs: each frame's
   * features come straight from its μ-law bytes (a table lookup per byte, about as cheap as copying
   * the frame into a batch), on arrival, with nothing decoded, batched or handed to a worker; and
   * `onAudio` is called only for frames that complete an event, with an empty `pcm`.
   */
  pcm?: boolean;
  /** Receives the call's decoded audio and VAD events, batch by batch, in arrival order. */
  onAudio(audio: InboundAudio): void;
}

/** One batch's worth of one call's inbound audio. */
export interface InboundAudio {
  /** Decoded 16-bit PCM at `sampleRate`. */
  readonly pcm: Int16Array;
  readonly sampleRate: InboundRate;
  /** Frames this audio came from. */
  readonly frames: number;
  /** Speech starts and utterance ends these frames completed, in order. */
  readonly events: readonly VadEvent[];
  /** Whether the caller is speaking after these frames. */
  readonly speaking: boolean;
}

/** A call's inbound audio stream: push Media Streams payloads in, get PCM and VAD events out. */
export class InboundCallAudio implements BatchMember {
  readonly sampleRate: InboundRate;
  readonly vad: VoiceActivityDetector;
  /** @internal The call's newest μ-law bytes already batched: its resampler history. */
  tail: Uint8Array = new Uint8Array(0);
  private open = true;

  /** @internal Created by `AudioWorkerPool.openCall`. */
  constructor(
    private readonly pool: InboundAudioSink,
    private readonly options: InboundCallOptions,
  ) {
    this.sampleRate = options.sampleRate ?? 8000;
    this.vad = new VoiceActivityDetector(options.vad);
  }

  /** Whether frames are still accepted. */
  get isOpen(): boolean {
    return this.open;
  }

  /** Queues one frame: raw μ-law bytes or the base64 `media.payload`; `arrivedAt` is performance.now() ms. */
  push(payload: string | Uint8Array, arrivedAt: number = performance.now()): void {
    if (!this.open) throw new SwitchboardError('CONFLICT', 'call audio stream is closed');
    if (this.options.pcm === false) this.detect(typeof payload === 'string' ? fromBase64(payload) : payload, arrivedAt);
    else this.pool.enqueue(this, payload, arrivedAt);
  }

  /** Stops the stream; frames still in flight are dropped. Returns the end of an utterance in progress. */
  close(): VadEvent | null {
    if (!this.open) return null;
    this.open = false;
    this.pool.forget(this);
    return this.vad.finish();
  }

  /** VAD on one frame's μ-law bytes, for a call that wants no PCM. */
  private detect(mulaw: Uint8Array, arrivedAt: number): void {
    if (mulaw.length === 0) return;
    const event = this.vad.push(mulawFrameFeatures(mulaw), mulaw.length / (CALL_SAMPLE_RATE / 1000));
    this.pool.handled(arrivedAt);
    if (event) this.options.onAudio({ pcm: NO_PCM, sampleRate: this.sampleRate, frames: 1, events: [event], speaking: this.vad.speaking });
  }

  /** @internal Runs VAD over this call's frames [first, first + count) of a batch and hands the results out. */
  deliver(pcm: Int16Array, features: Float32Array, frameBytes: Int32Array, first: number, count: number): void {
    if (!this.open) return;
    const events: VadEvent[] = [];
    for (let i = first; i < first + count; i++) {
      const frame = { energyDb: features[i * 2]!, zeroCrossingRate: features[i * 2 + 1]! };
      const event = this.vad.push(frame, frameBytes[i]! / (CALL_SAMPLE_RATE / 1000));
      if (event) events.push(event);
    }
    this.options.onAudio({ pcm, sampleRate: this.sampleRate, frames: count, events, speaking: this.vad.speaking });
  }
}

const NO_PCM = new Int16Array(0);

// A base64 payload is decoded into reused memory: its bytes are read at once and not kept.
let scratch = Buffer.allocUnsafe(1024);

function fromBase64(payload: string): Uint8Array {
  const room = Math.ceil(payload.length / 4) * 3;
  if (scratch.length < room) scratch = Buffer.allocUnsafe(room);
  return scratch.subarray(0, scratch.write(payload, 0, 'base64'));
}
