// Measures the audio pipeline's costs: codec throughput, resampler cost per frame, the work of
// decoding a frame against the cost of handing a batch to a worker, and pacing jitter.
// Run: node --conditions=switchboard-source --import tsx runtime/test/audio/audio-pipeline.bench.ts
import { performance } from 'node:perf_hooks';
import { AudioWorkerPool } from '../../src/audio/audio-worker-pool.js';
import { decodeMulaw, encodeMulaw } from '../../src/audio/g711.js';
import { InboundBatchBuilder, type BatchMember } from '../../src/audio/inbound-batch.js';
import { FramePacer } from '../../src/audio/pacer.js';
import { Resampler } from '../../src/audio/resampler.js';
import { decodeFrames, type DecodedBatch, type InboundRate } from '../../src/audio/tasks.js';
import { tone, speechLike } from './signals.js';

const us = (ms: number): string => `${(ms * 1000).toFixed(2)} µs`;

function timeIt(iterations: number, fn: () => void): number {
  for (let i = 0; i < Math.min(iterations, 200); i++) fn();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return (performance.now() - started) / iterations;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function codecs(): void {
  const pcm = tone(1000, 8000, 80_000, 20_000);
  const mulaw = new Uint8Array(pcm.length);
  const back = new Int16Array(pcm.length);
  const enc = timeIt(200, () => encodeMulaw(pcm, mulaw));
  const dec = timeIt(200, () => decodeMulaw(mulaw, back));
  console.log(`μ-law encode: ${((pcm.length / enc) / 1000).toFixed(0)} Msamples/s (${us((enc * 160) / pcm.length)} per 20 ms frame)`);
  console.log(`μ-law decode: ${((pcm.length / dec) / 1000).toFixed(0)} Msamples/s (${us((dec * 160) / pcm.length)} per 20 ms frame)`);
}

function resamplers(): void {
  for (const [from, to] of [[8000, 16000], [16000, 8000], [8000, 24000], [24000, 8000], [16000, 24000], [24000, 16000]] as const) {
    const resampler = new Resampler(from, to);
    const frame = tone(440, from, from / 50, 10_000);
    const out = new Int16Array(resampler.outputLength(frame.length));
    const perFrame = timeIt(5000, () => resampler.process(frame, out));
    console.log(`resample ${from} → ${to} Hz: ${us(perFrame)} per 20 ms frame (${resampler.kernel.taps} taps per phase)`);
  }
}

class Member implements BatchMember {
  tail = new Uint8Array(0);
  constructor(readonly sampleRate: InboundRate) {}
}

function batchOf(frames: number, rate: InboundRate, payloads: string[]): ReturnType<InboundBatchBuilder<Member>['build']> {
  const builder = new InboundBatchBuilder<Member>();
  const members = Array.from({ length: frames }, () => new Member(rate));
  for (let i = 0; i < frames; i++) builder.add(members[i]!, payloads[i % payloads.length]!, 0);
  return builder.build();
}

async function handOff(): Promise<void> {
  const speech = encodeMulaw(speechLike(8000, 8000));
  const payloads = Array.from({ length: 50 }, (_, i) => Buffer.from(speech.subarray(i * 160, i * 160 + 160)).toString('base64'));
  const pool = new AudioWorkerPool({ threads: 1 });
  await pool.ready();
  const piscina = (pool as unknown as { piscina: { run(task: unknown, options: unknown): Promise<DecodedBatch> } }).piscina;
  console.log('\nbatch of N frames (one per call): main-thread batching, the work, and the hand-off around it (round trip minus work)');
  for (const rate of [8000, 16000] as const) {
    for (const frames of [1, 4, 16, 64, 256]) {
      const rounds = Math.max(20, Math.floor(4000 / frames));
      const build = timeIt(rounds, () => batchOf(frames, rate, payloads));
      const sample = batchOf(frames, rate, payloads)!;
      const work = timeIt(rounds, () => decodeFrames(sample.task));
      const overheads: number[] = [];
      const submits: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const built = batchOf(frames, rate, payloads)!;
        const started = performance.now();
        const running = piscina.run(built.task, { name: 'decodeFrames', transferList: [built.task.audio.buffer, built.task.layout.buffer] });
        submits.push(performance.now() - started);
        const result = await running;
        overheads.push(performance.now() - started - result.workMs);
      }
      const overhead = median(overheads);
      console.log(
        `  ${rate / 1000} kHz out, N=${String(frames).padStart(3)}: build ${us(build / frames)}/frame, work ${us(work / frames)}/frame, ` +
          `hand-off ${us(overhead)}/batch (main thread ${us(median(submits))}) = ${us(overhead / frames)}/frame → hand-off/work ${(overhead / work).toFixed(2)}`,
      );
    }
  }
  await pool.close();
}

async function pacing(): Promise<void> {
  const sent: number[] = [];
  const pacer = new FramePacer({ send: () => sent.push(performance.now()), leadFrames: 0 });
  const started = performance.now();
  pacer.enqueue(Array.from({ length: 100 }, () => new Uint8Array(160)));
  await pacer.drained();
  const errors = sent.map((t, i) => t - started - i * 20);
  const abs = errors.map(Math.abs);
  console.log(`\npacing 100 frames (2 s): median |error| ${median(abs).toFixed(2)} ms, max ${Math.max(...abs).toFixed(2)} ms, last frame ${errors.at(-1)!.toFixed(2)} ms off`);
}

codecs();
resamplers();
await handOff();
await pacing();
