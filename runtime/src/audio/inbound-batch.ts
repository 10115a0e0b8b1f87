// Collects inbound frames of many calls, in arrival order, into one transferable batch grouped by
// call, carrying each call's resampler history so a stateless worker can continue its stream.
import { Buffer } from 'node:buffer';
import { historyBytes, type InboundBatch, type InboundRate } from './tasks.js';

/** A call stream as the batch builder sees it. */
export interface BatchMember {
  readonly sampleRate: InboundRate;
  /** The call's newest μ-law bytes already batched (at most its history length). */
  tail: Uint8Array;
}

/** One call's share of a built batch. */
export interface BatchGroup<M extends BatchMember> {
  readonly member: M;
  readonly frames: number;
}

/** A batch ready to send, plus what the main thread keeps to hand the results out. */
export interface BuiltBatch<M extends BatchMember> {
  readonly task: InboundBatch;
  readonly groups: readonly BatchGroup<M>[];
  /** Per frame, in group order: arrival time (performance.now ms). */
  readonly arrivals: Float64Array;
  /** Per frame, in group order: μ-law bytes (= samples at 8 kHz). The task's layout is transferred away; this stays. */
  readonly frameBytes: Int32Array;
}

interface PendingGroup<M> {
  readonly member: M;
  readonly frames: number[];
}

/** Accumulates frames until the pool sends them as one task. */
export class InboundBatchBuilder<M extends BatchMember> {
  private staging = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];
  private readonly arrivals: number[] = [];
  private readonly groups = new Map<M, PendingGroup<M>>();

  /** Frames waiting. */
  get frames(): number {
    return this.offsets.length;
  }

  /** Adds one frame: raw μ-law bytes, or the base64 text of a Media Streams `media.payload`. */
  add(member: M, payload: string | Uint8Array, arrivedAt: number): void {
    const room = typeof payload === 'string' ? Math.ceil(payload.length / 4) * 3 : payload.length;
    this.reserve(room);
    const length = typeof payload === 'string' ? this.staging.write(payload, this.used, 'base64') : this.copy(payload);
    if (length === 0) return;
    let group = this.groups.get(member);
    if (!group) {
      group = { member, frames: [] };
      this.groups.set(member, group);
    }
    group.frames.push(this.offsets.length);
    this.offsets.push(this.used);
    this.lengths.push(length);
    this.arrivals.push(arrivedAt);
    this.used += length;
  }

  /** Forgets a member's waiting frames (its call closed). */
  remove(member: M): void {
    this.groups.delete(member);
  }

  /** Builds the task from the waiting frames and starts a new batch; null when nothing waits. */
  build(): BuiltBatch<M> | null {
    if (this.groups.size === 0) {
      this.clear();
      return null;
    }
    let bytes = 0;
    let frames = 0;
    for (const { member, frames: indices } of this.groups.values()) {
      bytes += member.tail.length;
      for (const i of indices) bytes += this.lengths[i]!;
      frames += indices.length;
    }
    const audio = new Uint8Array(bytes);
    const layout = new Int32Array(1 + this.groups.size * 3 + frames);
    const arrivals = new Float64Array(frames);
    const frameBytes = new Int32Array(frames);
    const groups: BatchGroup<M>[] = [];
    layout[0] = this.groups.size;
    let offset = 0;
    let g = 0;
    let a = 0;
    let f = 1 + this.groups.size * 3;
    for (const { member, frames: indices } of this.groups.values()) {
      const start = offset;
      audio.set(member.tail, offset);
      offset += member.tail.length;
      for (const i of indices) {
        const frameOffset = this.offsets[i]!;
        const length = this.lengths[i]!;
        audio.set(this.staging.subarray(frameOffset, frameOffset + length), offset);
        offset += length;
        frameBytes[a] = length;
        arrivals[a++] = this.arrivals[i]!;
        layout[f++] = length;
      }
      layout[1 + g * 3] = member.tail.length;
      layout[2 + g * 3] = indices.length;
      layout[3 + g * 3] = member.sampleRate;
      g++;
      groups.push({ member, frames: indices.length });
      // The next batch continues this call's stream from its newest bytes.
      member.tail = audio.slice(Math.max(start, offset - historyBytes(member.sampleRate)), offset);
    }
    this.clear();
    return { task: { audio, layout }, groups, arrivals, frameBytes };
  }

  private copy(payload: Uint8Array): number {
    this.staging.set(payload, this.used);
    return payload.length;
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.staging.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.staging.length * 2, this.used + bytes));
    this.staging.copy(grown, 0, 0, this.used);
    this.staging = grown;
  }

  private clear(): void {
    this.used = 0;
    this.offsets.length = 0;
    this.lengths.length = 0;
    this.arrivals.length = 0;
    this.groups.clear();
  }
}
