// The audio pipeline's worker pool: inbound frames of every call on this node are collected for a
// few milliseconds and decoded as one piscina task; replies are resampled and encoded in workers.
// Per-call state (VAD, resampler history) stays on the main thread with the call; workers only
// see self-contained batches, so any worker can take any batch and a call never waits on one.
// Batches too small to be worth a thread hand-off are decoded inline, through the same code.
import { SwitchboardError, type AudioFormat } from '@switchboard/sdk';
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { CALL_SAMPLE_RATE, needsResampling, splitFrames, toCallAudio } from './framing.js';
import { InboundBatchBuilder, type BuiltBatch } from './inbound-batch.js';
import { InboundCallAudio, type InboundAudioSink, type InboundCallOptions } from './inbound-call-audio.js';
import { decodeFrames, type DecodedBatch, type EncodedReply, type ReplyTask } from './tasks.js';
import { audioWorkerFile, defaultAudioThreads } from './worker-file.js';

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
   * decoding a frame and measuring its energy costs 3–5 µs, so a batch is about a millisecond at
   * most, while a hand-off costs 70–200 µs and, on a machine whose cores are busy, waits for a core
   * as well. With 300 calls on 2 cores, frame delay p99 was 80–160 ms with batches of ~75 frames sent
   * to the worker, 40–80 ms with batches under 128 decoded inline, 10–20 ms with all but full batches
   * inline (and less CPU). Batches that resample always go to a worker: one frame's resampling
   * already costs more than the hand-off. 0 sends every batch to the workers. Default: the
   * `maxBatchFrames`, so only full batches (a burst, or many calls) go to a worker.
   */
  inlineBelowFrames?: number;
  /** Observes each inbound frame's delay from arrival to processed, in seconds. */
  onFrameDelay?: (seconds: number) => void;
  /** Told about a batch that failed; its frames are dropped and later batches carry on. */
  onError?: (err: unknown) => void;
  /** The worker entry file; found next to this module when omitted. */
  workerFile?: string;
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

/** Decodes, resamples and encodes call audio in a piscina worker pool, batched across calls. */
export class AudioWorkerPool implements InboundAudioSink {
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
    this.inlineBelowFrames = Math.min(this.maxBatchFrames, Math.max(0, options.inlineBelowFrames ?? this.maxBatchFrames));
    this.piscina = new Piscina({
      filename: options.workerFile ?? audioWorkerFile(),
      // A fixed set of warm threads: starting one mid-call would stall that call's frames.
      minThreads: this.threads,
      maxThreads: this.threads,
      // Per-task timing histograms cost time on every hand-off; the pool measures what it needs.
      recordTiming: false,
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

  /** @internal */
  handled(arrivedAt: number): void {
    this.stats.frames++;
    this.options.onFrameDelay?.((performance.now() - arrivedAt) / 1000);
  }

  /** decodeAndDetect: decodes the waiting frames as one batch (in a worker, or inline when small); VAD runs per call on delivery. */
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
      try {
        next();
      } catch (err) {
        this.options.onError?.(err); // a throwing observer must not stall the batches behind it
      }
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
