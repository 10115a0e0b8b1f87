// Real-time playback of reply frames: one frame per 20 ms against a monotonic clock, so the far
// end never holds more than `leadFrames` of audio and a barge-in `clear` cuts the reply at once.
import { performance } from 'node:perf_hooks';
import { FRAME_MS } from './framing.js';

/** Where a pacer sends what it plays. */
export interface FramePacerOptions {
  /** Sends one frame (the gateway wraps it in a media message). */
  send(frame: Uint8Array): void;
  /** Sends a mark once the last frame of a reply chunk has been sent. */
  mark?(name: string): void;
  /** Frame duration (ms). Default 20. */
  frameMs?: number;
  /** Frames sent ahead of real time when playback starts, as a cushion against timer jitter. Default 2. */
  leadFrames?: number;
  /** Monotonic clock in ms. Default `performance.now`. */
  now?: () => number;
}

interface Chunk {
  readonly frames: readonly Uint8Array[];
  next: number;
  readonly mark: string | undefined;
}

/** Frames sent up to this early count as due: timers fire late, never early, at ms granularity. */
const EARLY_MS = 1;

/** Plays reply frames to one call in real time. */
export class FramePacer {
  private readonly frameMs: number;
  private readonly leadFrames: number;
  private readonly now: () => number;
  private readonly queue: Chunk[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Clock time at which frame `sent` of the current run is due is `startedAt + (sent - leadFrames) * frameMs`. */
  private startedAt = 0;
  private sent = 0;
  private queued = 0;
  private waiters: (() => void)[] = [];
  /** True while frames are being sent, so callbacks that enqueue or stop do not re-enter. */
  private ticking = false;
  /** Bumped by stop(), so a send loop notices it was interrupted. */
  private generation = 0;

  constructor(private readonly options: FramePacerOptions) {
    this.frameMs = options.frameMs ?? FRAME_MS;
    this.leadFrames = options.leadFrames ?? 2;
    this.now = options.now ?? (() => performance.now());
  }

  /** Frames queued and not yet sent. */
  get pending(): number {
    return this.queued;
  }

  /** Whether frames are queued. */
  get playing(): boolean {
    return this.queued > 0;
  }

  /**
   * Queues a reply chunk; `mark` is sent after its last frame. Returns the clock time its first frame
   * is due (already sent, when the pacer was idle).
   */
  enqueue(frames: readonly Uint8Array[], mark?: string): number {
    if (frames.length === 0 && mark === undefined) return this.now();
    const now = this.now();
    // Continue the running timeline while it is still ahead of the clock; otherwise start a new one.
    const idle = !this.ticking && this.timer === undefined;
    if (this.sent === 0 || (idle && this.dueAt(this.sent) < now)) {
      this.startedAt = now;
      this.sent = 0;
    }
    const due = this.dueAt(this.sent + this.queued);
    this.queue.push({ frames, next: 0, mark });
    this.queued += frames.length;
    if (!this.ticking && this.timer === undefined) this.tick();
    return due;
  }

  /** Stops playback at once and forgets the queue; returns how many frames were not sent. */
  stop(): number {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const dropped = this.queued;
    this.queue.length = 0;
    this.queued = 0;
    this.sent = 0;
    this.generation++;
    this.settle();
    return dropped;
  }

  /** Resolves once every queued frame has been sent (or the pacer was stopped). */
  drained(): Promise<void> {
    if (this.queued === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private dueAt(frame: number): number {
    return this.startedAt + (frame - this.leadFrames) * this.frameMs;
  }

  private tick = (): void => {
    this.timer = undefined;
    this.ticking = true;
    try {
      this.sendDue(this.generation);
    } finally {
      this.ticking = false;
    }
    this.schedule();
  };

  /** Sends every frame and mark that is due, catching up after a stalled event loop rather than drifting. */
  private sendDue(generation: number): void {
    const now = this.now();
    while (this.queue.length > 0) {
      const chunk = this.queue[0]!;
      if (chunk.next < chunk.frames.length) {
        if (this.dueAt(this.sent) > now + EARLY_MS) return;
        const frame = chunk.frames[chunk.next++]!;
        this.sent++;
        this.queued--;
        this.options.send(frame);
      } else {
        this.queue.shift();
        if (chunk.mark !== undefined) this.options.mark?.(chunk.mark);
      }
      if (generation !== this.generation) return; // a callback stopped playback
    }
  }

  private schedule(): void {
    if (this.ticking || this.timer !== undefined) return;
    if (this.queue.length === 0) {
      this.settle();
      return;
    }
    this.timer = setTimeout(this.tick, Math.max(0, this.dueAt(this.sent) - this.now()));
  }

  private settle(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
