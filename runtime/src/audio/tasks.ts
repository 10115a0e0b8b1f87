// The CPU-heavy steps of the audio pipeline as plain functions over transferable buffers.
// The worker runs them; the pool can also run them inline when a batch is too small to be worth
// a thread hand-off. They keep no per-call state: a call's resampler history travels in the batch.
import type { AudioFormat } from '@switchboard/sdk';
import { performance } from 'node:perf_hooks';
import { toCallAudio } from './framing.js';
import { decodeMulaw } from './g711.js';
import { Resampler } from './resampler.js';
import { frameFeatures } from './vad.js';

/** Rates inbound call audio can be delivered at. All are whole multiples of 8 kHz, so a 20 ms frame boundary is also a resampler phase boundary and the only state to carry is the filter history. */
export type InboundRate = 8000 | 16000 | 24000;

/**
 * Inbound frames of many calls, grouped by call. `audio` holds, per group, the call's history
 * bytes (its last μ-law bytes before this batch) followed by its frames back to back.
 * `layout` is [groups, then per group: historyBytes, frameCount, outputRate, then per frame: byteLength].
 */
export interface InboundBatch {
  readonly audio: Uint8Array<ArrayBuffer>;
  readonly layout: Int32Array<ArrayBuffer>;
}

/** What the batch decodes to. */
export interface DecodedBatch {
  /** PCM at each group's output rate, groups back to back. */
  readonly pcm: Int16Array;
  /** Per group: first sample in `pcm`, sample count. */
  readonly spans: Int32Array;
  /** Per frame, in batch order: energy (dBFS), zero-crossing rate. */
  readonly features: Float32Array;
  /** Time the work took where it ran (ms). */
  readonly workMs: number;
}

/** Synthesized audio to turn into call frames. */
export interface ReplyTask {
  readonly audio: Uint8Array<ArrayBuffer>;
  readonly format: AudioFormat;
}

/** Call audio: 8 kHz μ-law padded to whole 20 ms frames. */
export interface EncodedReply {
  readonly mulaw: Uint8Array;
  readonly workMs: number;
}

/** Bytes of μ-law history a call at `rate` carries between batches. */
export function historyBytes(rate: InboundRate): number {
  return rate === 8000 ? 0 : resamplerFor(rate).historyLength;
}

const resamplers = new Map<number, Resampler>();

function resamplerFor(rate: number): Resampler {
  let resampler = resamplers.get(rate);
  if (!resampler) {
    resampler = new Resampler(8000, rate);
    resamplers.set(rate, resampler);
  }
  return resampler;
}

// Reused decode buffers: decoding allocates nothing once they have grown to the largest group.
let scratch = new Int16Array(8000);
let historyScratch = new Int16Array(256);

function decoded(bytes: Uint8Array): Int16Array {
  if (scratch.length < bytes.length) scratch = new Int16Array(bytes.length);
  return decodeMulaw(bytes, scratch.subarray(0, bytes.length));
}

function decodedHistory(bytes: Uint8Array): Int16Array {
  if (historyScratch.length < bytes.length) historyScratch = new Int16Array(bytes.length);
  return decodeMulaw(bytes, historyScratch.subarray(0, bytes.length));
}

/** Decodes a batch: μ-law → PCM (resampled per group), plus VAD features per frame. */
export function decodeFrames(batch: InboundBatch): DecodedBatch {
  const started = performance.now();
  const { audio, layout } = batch;
  const groups = layout[0]!;
  let frameIndex = 1 + groups * 3;
  const frameCount = layout.length - frameIndex;
  const features = new Float32Array(frameCount * 2);
  const spans = new Int32Array(groups * 2);

  let total = 0;
  for (let g = 0, f = frameIndex; g < groups; g++) {
    const frames = layout[2 + g * 3]!;
    const rate = layout[3 + g * 3]!;
    let bytes = 0;
    for (let i = 0; i < frames; i++) bytes += layout[f++]!;
    total += (bytes * rate) / 8000;
  }
  const pcm = new Int16Array(total);

  let byteOffset = 0;
  let sampleOffset = 0;
  let feature = 0;
  for (let g = 0; g < groups; g++) {
    const history = layout[1 + g * 3]!;
    const frames = layout[2 + g * 3]!;
    const rate = layout[3 + g * 3]!;
    let bytes = 0;
    for (let i = 0; i < frames; i++) bytes += layout[frameIndex + i]!;
    const count = (bytes * rate) / 8000;
    const out = pcm.subarray(sampleOffset, sampleOffset + count);
    const mulaw = audio.subarray(byteOffset + history, byteOffset + history + bytes);
    // At 8 kHz out the decoded frames are the output; otherwise they go through the resampler.
    const pcm8k = rate === 8000 ? decodeMulaw(mulaw, out) : decoded(mulaw);
    // VAD features come from the 8 kHz signal, frame by frame.
    let start = 0;
    for (let i = 0; i < frames; i++) {
      const end = start + layout[frameIndex + i]!;
      const { energyDb, zeroCrossingRate } = frameFeatures(pcm8k, start, end);
      features[feature++] = energyDb;
      features[feature++] = zeroCrossingRate;
      start = end;
    }
    if (rate !== 8000) {
      const resampler = resamplerFor(rate);
      resampler.reset(decodedHistory(audio.subarray(byteOffset, byteOffset + history)));
      resampler.process(pcm8k, out);
    }
    spans[g * 2] = sampleOffset;
    spans[g * 2 + 1] = count;
    sampleOffset += count;
    byteOffset += history + bytes;
    frameIndex += frames;
  }
  return { pcm, spans, features, workMs: performance.now() - started };
}

/** Turns synthesized audio into 8 kHz μ-law padded to whole frames. */
export function encodeReply(task: ReplyTask): EncodedReply {
  const started = performance.now();
  const mulaw = toCallAudio(task.audio, task.format);
  return { mulaw, workMs: performance.now() - started };
}
