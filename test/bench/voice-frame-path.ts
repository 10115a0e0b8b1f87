// Micro-benchmark of the stream-mode inbound frame path, per 20 ms frame, on this thread:
//   before: base64 decoded for speech-to-text, decoded again into the pool's batch, the batch
//           decoded to PCM with VAD features, VAD run on delivery (the pool's inline path);
//   after:  base64 decoded once (speech-to-text keeps the bytes), VAD features straight from the
//           μ-law through a table, on arrival;
//   now:    the server's own StreamCall.handle, from the message object on (what after does, plus
//           the call's own steps and each utterance's finalize).
// All see the same frames from CALLS calls, batched as the pool batches them (one batch window's
// worth of frames). JSON.parse of the Twilio message is shown for scale: it precedes either path.
// Run: node --conditions=switchboard-source --import tsx test/bench/voice-frame-path.ts [calls]
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { encodeMulaw } from '../../runtime/src/audio/g711.js';
import { InboundBatchBuilder } from '../../runtime/src/audio/inbound-batch.js';
import { InboundCallAudio, type InboundAudioSink, type InboundCallOptions } from '../../runtime/src/audio/inbound-call-audio.js';
import { decodeFrames } from '../../runtime/src/audio/tasks.js';
import type { AudioWorkerPool } from '../../runtime/src/audio/audio-worker-pool.js';
import type { Store } from '../../runtime/src/store/store.js';
import { StreamCall } from '../../runtime/src/voice/stream-call.js';
import type { VoiceService } from '../../runtime/src/voice/voice-service.js';

const FRAME = 160;
const CALLS = Number(process.argv[2] ?? 300);
/** Frames per batch: CALLS calls × 50 frames/s × the pool's 5 ms window. */
const BATCH = Math.max(1, Math.round((CALLS * 50 * 5) / 1000));
const ROUNDS = 7;

/** A voiced, syllabic test signal with pauses, as μ-law frames in base64 (what Media Streams sends). */
function payloads(): string[] {
  const samples = new Int16Array(8000 * 4);
  for (let i = 0; i < samples.length; i++) {
    const t = i / 8000;
    const syllable = t % 0.22 < 0.18 && t % 2 < 1.4 ? Math.sin((Math.PI * (t % 0.22)) / 0.18) : 0.02;
    samples[i] = Math.round(9000 * syllable * (Math.sin(2 * Math.PI * 140 * t) + 0.5 * Math.sin(2 * Math.PI * 280 * t)));
  }
  const mulaw = encodeMulaw(samples);
  const out: string[] = [];
  for (let i = 0; i < mulaw.length; i += FRAME) out.push(Buffer.from(mulaw.subarray(i, i + FRAME)).toString('base64'));
  return out;
}

const sink: InboundAudioSink = { enqueue: () => undefined, forget: () => undefined, handled: () => undefined };
let events = 0;
const onAudio = (audio: { events: readonly unknown[] }) => void (events += audio.events.length);
let kept = 0;
/** Stands in for the speech-to-text driver, which keeps each frame's bytes. */
const stt = (bytes: Buffer) => void (kept += bytes.length);

function before(frames: readonly string[], total: number): void {
  const calls = Array.from({ length: CALLS }, () => new InboundCallAudio(sink, { onAudio }));
  const builder = new InboundBatchBuilder<InboundCallAudio>();
  for (let f = 0; f < total; f++) {
    const payload = frames[Math.floor(f / CALLS) % frames.length]!;
    stt(Buffer.from(payload, 'base64'));
    builder.add(calls[f % CALLS]!, payload, 0);
    if (builder.frames >= BATCH || f === total - 1) {
      const built = builder.build()!;
      const decoded = decodeFrames(built.task);
      let first = 0;
      built.groups.forEach(({ member, frames: count }, g) => {
        const start = decoded.spans[g * 2]!;
        member.deliver(decoded.pcm.subarray(start, start + decoded.spans[g * 2 + 1]!), decoded.features, built.frameBytes, first, count);
        first += count;
      });
    }
  }
}

function after(frames: readonly string[], total: number): void {
  const calls = Array.from({ length: CALLS }, () => new InboundCallAudio(sink, { pcm: false, onAudio }));
  for (let f = 0; f < total; f++) {
    const mulaw = Buffer.from(frames[Math.floor(f / CALLS) % frames.length]!, 'base64');
    stt(mulaw);
    calls[f % CALLS]!.push(mulaw, 0);
  }
}

/** Stream calls with no session (they hang up, their media stream stays open): only the frame path runs. */
async function streamCalls(): Promise<StreamCall[]> {
  const recognition = { write: stt, finalize: () => Promise.resolve(''), close: () => Promise.resolve() };
  const voice = { stt: () => ({ open: async () => recognition }), streamStart: (frame: { start: { streamSid: string } }) => ({ streamSid: frame.start.streamSid }) } as unknown as VoiceService;
  const pool = { openCall: (options: InboundCallOptions) => new InboundCallAudio(sink, { ...options, onAudio: (audio) => (onAudio(audio), options.onAudio(audio)) }) } as unknown as AudioWorkerPool;
  return Promise.all(
    Array.from({ length: CALLS }, async (_, i) => {
      const call = new StreamCall(voice, {} as Store, 'agent-1', () => undefined, pool).attach(() => undefined);
      await call.handle({ event: 'start', start: { streamSid: `MZ${i}` } });
      return call;
    }),
  );
}

function now(calls: readonly StreamCall[]): (frames: readonly string[], total: number) => void {
  return (frames, total) => {
    for (let f = 0; f < total; f++) calls[f % CALLS]!.handle({ event: 'media', media: { payload: frames[Math.floor(f / CALLS) % frames.length]! } });
  };
}

function parse(frames: readonly string[], total: number): void {
  const messages = frames.slice(0, 50).map((payload, i) =>
    Buffer.from(JSON.stringify({ event: 'media', sequenceNumber: String(i + 2), media: { track: 'inbound', chunk: String(i + 1), timestamp: String(i * 20), payload }, streamSid: 'MZ0123456789abcdef0123456789abcdef' })),
  );
  for (let f = 0; f < total; f++) kept += (JSON.parse(messages[f % messages.length]!.toString('utf8')) as { event: string }).event.length;
}

/** Median µs of CPU per frame over ROUNDS rounds of `total` frames, after a warm-up round. */
function measure(path: (frames: readonly string[], total: number) => void, frames: readonly string[], total: number): number {
  path(frames, total);
  const perFrame: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage();
    path(frames, total);
    const { user, system } = process.cpuUsage(cpu);
    perFrame.push((user + system) / total);
  }
  return perFrame.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

const frames = payloads();
const total = CALLS * 50 * 4; // four seconds of every call's audio per round
const started = performance.now();
events = 0;
const calls = await streamCalls();
const costs = { before: measure(before, frames, total), after: measure(after, frames, total), now: measure(now(calls), frames, total), parse: measure(parse, frames, total) };
console.log(`frame path, ${CALLS} calls, batches of ${BATCH} frames (${total.toLocaleString('en-US')} frames per round, median of ${ROUNDS} rounds):`);
console.log(`  before (decode twice, PCM + features, VAD): ${costs.before.toFixed(2)} µs CPU per frame`);
console.log(`  after  (decode once, VAD from μ-law):       ${costs.after.toFixed(2)} µs CPU per frame (${(costs.after / costs.before).toFixed(2)} of before)`);
console.log(`  now    (StreamCall.handle):                  ${costs.now.toFixed(2)} µs CPU per frame (${(costs.now / costs.after).toFixed(2)} of after)`);
console.log(`  for scale, JSON.parse of the media message:  ${costs.parse.toFixed(2)} µs CPU per frame`);
console.log(`  per call-second (50 frames): before ${((costs.before * 50) / 1000).toFixed(3)} ms, after ${((costs.after * 50) / 1000).toFixed(3)} ms, now ${((costs.now * 50) / 1000).toFixed(3)} ms`);
console.log(`  (${events} VAD events, ${kept} bytes kept; ${((performance.now() - started) / 1000).toFixed(1)} s)`);
