// The audio pipeline's worker pool: inbound frames of every call on this node are collected for a
// few milliseconds and decoded as one piscina task; replies are resampled and encoded in workers.
// Per-call state (VAD, resampler history) stays on the main thread with the call; workers only
// see self-contained batches, so any worker can take any batch and a call never waits on one.
import { SwitchboardError, type AudioFormat } from '@switchboard/sdk';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { CALL_SAMPLE_RATE, needsResampling, splitFrames, toCallAudio } from './framing.js';
import { InboundBatchBuilder, type BatchMember, type BuiltBatch } from './inbound-batch.js';
import { decodeFrames, type DecodedBatch, type EncodedReply, type InboundRate, type ReplyTask } from './tasks.js';
import { VoiceActivityDetector, type VadEvent, type VadOptions } from './vad.js';

/** How a pool runs. */
export interface AudioWorkerPoolOptions {
  /** Worker threads. Default: available parallelism − 1, at least 1. */
  threads?: number;
  /** How long the first frame of a batch waits for frames of other calls (ms). Default 5. */
  batchWindowMs?: number;
  /** A batch is sent as soon as it holds this many frames. Default 256. */
  maxBatchFrames?: number;
  /**
   * Batches of fewer frames that need no resampling (8 kHz out) are decoded on the calling thread:
   * decoding a frame costs a few µs, a thread hand-off about 100 µs, so below about 8 frames the
   * hand-off would cost more than the work. Batches that resample always go to a worker (one frame
   * is already worth it). 0 sends every batch to the workers. Default 8.
   */
  inlineBelowFrames?: number;
  /** Observes each inbound frame's delay from arrival to processed, in seconds. */
  onFrameDelay?: (seconds: number) => void;
  /** Told about a batch that failed; its frames are dropped and later batches carry on. */
  onError?: (err: unknown) => void;
  /** The worker entry file; found next to this module when omitted. */
  workerFile?: string;
}

/** How one call's inbound audio is delivered. */
export interface InboundCallOptions {
  /** Rate of the PCM handed to `onAudio` (8 kHz is the call's own; 16 kHz suits most STT). Default 8000. */
  sampleRate?: InboundRate;
  /** Voice activity detection tuning. */
  vad?: VadOptions;
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

/** Counters for tests and metrics. */
export interface AudioPoolStats {
  frames: number;
  batches: number;
  /** Batches decoded on the calling thread because they were too small to be worth a hand-off. */
  inlineBatches: number;
  failedBatches: number;
  replies: number;
}

/** A call's inbound audio stream: push Media Streams payloads in, get PCM and VAD events out. */
export class InboundCallAudio implements BatchMember {
  readonly sampleRate: InboundRate;
  readonly vad: VoiceActivityDetector;
  tail: Uint8Array = new Uint8Array(0);
  private open = true;

  /** @internal Created by {@link AudioWorkerPool.openCall}. */
  constructor(
    private readonly pool: AudioWorkerPool,
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
    this.pool.enqueue(this, payload, arrivedAt);
  }

  /** Stops the stream; frames still in flight are dropped. Returns the end of an utterance in progress. */
  close(): VadEvent | null {
    if (!this.open) return null;
    this.open = false;
    this.pool.forget(this);
    return this.vad.finish();
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

/** The default worker count: one core is left for the event loop. */
export function defaultAudioThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** Finds the worker entry: the tsx bootstrap under source, dist/audio/worker.js in the build. */
export function audioWorkerFile(): string {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return fileURLToPath(new URL('./worker-source.mjs', here));
  // Bundled, this code sits in dist/index.js or a dist/chunk; unbundled, next to worker.js.
  for (const candidate of ['./audio/worker.js', './worker.js']) {
    const path = fileURLToPath(new URL(candidate, here));
    if (existsSync(path)) return path;
  }
  throw new SwitchboardError('INTERNAL', `audio worker entry not found near ${here}`);
}

/** Decodes, resamples and encodes call audio in a piscina worker pool, batched across calls. */
export class AudioWorkerPool {
  readonly threads: number;
  readonly stats: AudioPoolStats = { frames: 0, batches: 0, inlineBatches: 0, failedBatches: 0, replies: 0 };
  private readonly piscina: Piscina;
  private readonly batchWindowMs: number;
  private readonly maxBatchFrames: number;
  private readonly inlineBelowFrames: number;
  private readonly builder = new InboundBatchBuilder<InboundCallAudio>();
  private timer: NodeJS.Timeout | undefined;
  /** Results are handed out in batch order even when workers finish out of order. */
  private nextBatch = 0;
  private nextDelivery = 0;
  private readonly finished = new Map<number, () => void>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;

  constructor(private readonly options: AudioWorkerPoolOptions = {}) {
    this.threads = Math.max(1, Math.floor(options.threads ?? defaultAudioThreads()));
    this.batchWindowMs = options.batchWindowMs ?? 5;
    this.maxBatchFrames = Math.max(1, options.maxBatchFrames ?? 256);
    this.inlineBelowFrames = Math.min(this.maxBatchFrames, Math.max(0, options.inlineBelowFrames ?? 8));
    this.piscina = new Piscina({
      filename: options.workerFile ?? audioWorkerFile(),
      minThreads: this.threads,
      maxThreads: this.threads,
      // Keep workers after close() from holding the process open.
      closeTimeout: 5000,
    });
  }

  /** Opens a call's inbound stream. */
  openCall(options: InboundCallOptions): InboundCallAudio {
    this.assertOpen();
    return new InboundCallAudio(this, options);
  }

  /** Turns synthesized speech into 20 ms μ-law frames; resampling runs in a worker. */
  async encodeReply(audio: Uint8Array, format: AudioFormat): Promise<Uint8Array[]> {
    this.assertOpen();
    this.stats.replies++;
    // Framing μ-law or encoding 8 kHz PCM is a table lookup per byte: cheaper than any hand-off.
    if (!needsResampling(format)) return splitFrames(toCallAudio(audio, format));
    // A private copy: the caller's Buffer may share its memory (Node's pool), which must not be detached.
    const task: ReplyTask = { audio: new Uint8Array(audio), format };
    const result = (await this.track(this.piscina.run(task, { name: 'encodeReply', transferList: [task.audio.buffer] }))) as EncodedReply;
    return splitFrames(result.mulaw);
  }

  /** Starts every worker (loading the worker code), so the first frames of a call are not delayed by it. */
  async ready(): Promise<void> {
    const empty = { audio: new Uint8Array(0), layout: new Int32Array([0]) };
    await Promise.all(Array.from({ length: this.threads }, () => this.piscina.run(empty, { name: 'decodeFrames' })));
  }

  /** Sends what is waiting, waits for work in flight, and stops the workers. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.flush();
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      await this.piscina.close();
    })();
    return this.closing;
  }

  /** @internal */
  enqueue(call: InboundCallAudio, payload: string | Uint8Array, arrivedAt: number): void {
    this.assertOpen();
    this.builder.add(call, payload, arrivedAt);
    if (this.builder.frames >= this.maxBatchFrames) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.batchWindowMs);
  }

  /** @internal */
  forget(call: InboundCallAudio): void {
    this.builder.remove(call);
  }

  /** Sends the waiting frames as one batch: decodeAndDetect. */
  private flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const built = this.builder.build();
    if (!built) return;
    const seq = this.nextBatch++;
    const frames = built.arrivals.length;
    this.stats.frames += frames;
    this.stats.batches++;
    if (frames < this.inlineBelowFrames && built.groups.every((g) => g.member.sampleRate === CALL_SAMPLE_RATE)) {
      this.stats.inlineBatches++;
      this.settle(seq, built, () => decodeFrames(built.task));
      return;
    }
    const { audio, layout } = built.task;
    const run = this.piscina.run(built.task, { name: 'decodeFrames', transferList: [audio.buffer, layout.buffer] }) as Promise<DecodedBatch>;
    void this.track(run).then(
      (result) => this.settle(seq, built, () => result),
      (err: unknown) => this.settle(seq, built, () => { throw err; }),
    );
  }

  /** Records a finished batch and hands out every batch that is now next in line. */
  private settle(seq: number, built: BuiltBatch<InboundCallAudio>, result: () => DecodedBatch): void {
    this.finished.set(seq, () => {
      let decoded: DecodedBatch;
      try {
        decoded = result();
      } catch (err) {
        this.stats.failedBatches++;
        this.options.onError?.(err);
        return;
      }
      this.deliver(built, decoded);
    });
    for (let next = this.finished.get(this.nextDelivery); next; next = this.finished.get(this.nextDelivery)) {
      this.finished.delete(this.nextDelivery++);
      next();
    }
  }

  private deliver(built: BuiltBatch<InboundCallAudio>, decoded: DecodedBatch): void {
    let frame = 0;
    for (let g = 0; g < built.groups.length; g++) {
      const { member, frames } = built.groups[g]!;
      const start = decoded.spans[g * 2]!;
      const pcm = decoded.pcm.subarray(start, start + decoded.spans[g * 2 + 1]!);
      try {
        member.deliver(pcm, decoded.features, built.frameBytes, frame, frames);
      } catch (err) {
        this.options.onError?.(err);
      }
      frame += frames;
    }
    const observe = this.options.onFrameDelay;
    if (observe) {
      const now = performance.now();
      for (const arrived of built.arrivals) observe((now - arrived) / 1000);
    }
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    const done = (): void => void this.inFlight.delete(promise);
    promise.then(done, done);
    return promise;
  }

  private assertOpen(): void {
    if (this.closing) throw new SwitchboardError('UNAVAILABLE', 'audio worker pool is closed');
  }
}
