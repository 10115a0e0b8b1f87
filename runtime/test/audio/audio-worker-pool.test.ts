import { hasErrorCode } from '@switchboard/sdk';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { AudioWorkerPool } from '../../src/audio/audio-worker-pool.js';
import type { InboundAudio, InboundCallAudio } from '../../src/audio/inbound-call-audio.js';
import { splitFrames, toCallAudio } from '../../src/audio/framing.js';
import { decodeMulaw, encodeMulaw } from '../../src/audio/g711.js';
import { Resampler } from '../../src/audio/resampler.js';
import type { InboundRate } from '../../src/audio/tasks.js';
import { VoiceActivityDetector, frameFeatures, type VadEvent } from '../../src/audio/vad.js';
import { concat, mix, noise, speechLike, tone } from './signals.js';
import { eventually } from '../../src/testing/eventually.js';

const FRAME = 160;

/** What one call sends: μ-law frames, and what the pipeline should make of them. */
interface Script {
  readonly rate: InboundRate;
  readonly mulaw: Uint8Array;
  readonly expectedPcm: Int16Array;
  readonly expectedEvents: VadEvent[];
}

function script(index: number, rate: InboundRate): Script {
  const lead = 200 + 40 * index; // each call starts speaking at a different moment
  const kinds = [
    () => concat(new Int16Array(lead * 8), speechLike(8000), new Int16Array(8000)),
    () => new Int16Array(16_000 + lead * 8),
    () => concat(tone(700, 8000, lead * 8, 9000), new Int16Array(16_000)),
  ];
  const pcm = mix(kinds[index % kinds.length]!(), noise(20_000, 30, index + 1));
  const mulaw = encodeMulaw(pcm.subarray(0, Math.floor(pcm.length / FRAME) * FRAME));
  const decoded = decodeMulaw(mulaw);
  const vad = new VoiceActivityDetector();
  const expectedEvents: VadEvent[] = [];
  for (let i = 0; i < decoded.length; i += FRAME) {
    const event = vad.push(frameFeatures(decoded, i, i + FRAME), 20);
    if (event) expectedEvents.push(event);
  }
  const expectedPcm = rate === 8000 ? decoded : new Resampler(8000, rate).process(decoded);
  return { rate, mulaw, expectedPcm, expectedEvents };
}

interface Received {
  pcm: Int16Array[];
  events: VadEvent[];
  frames: number;
}

function open(pool: AudioWorkerPool, rate: InboundRate, received: Received, onBatch?: (a: InboundAudio) => void): InboundCallAudio {
  return pool.openCall({
    sampleRate: rate,
    onAudio: (audio) => {
      assert.equal(audio.sampleRate, rate);
      received.pcm.push(audio.pcm.slice());
      received.events.push(...audio.events);
      received.frames += audio.frames;
      onBatch?.(audio);
    },
  });
}

describe('audio worker pool', () => {
  let pool: AudioWorkerPool;
  /** A second pool with the real worker entry and default options (8 kHz batches inline unless full). */
  let plain: AudioWorkerPool;
  const delays: number[] = [];
  const errors: unknown[] = [];

  before(async () => {
    pool = new AudioWorkerPool({
      threads: 2,
      inlineBelowFrames: 0, // every batch goes through a worker
      batchWindowMs: 2,
      maxBatchFrames: 16,
      onFrameDelay: (s) => delays.push(s),
      onError: (err) => errors.push(err),
      workerFile: fileURLToPath(new URL('./jittery-worker.mjs', import.meta.url)),
    });
    plain = new AudioWorkerPool({ threads: 1 });
    // Loading the worker code through tsx takes a second or so: both pools warm up together.
    await Promise.all([pool.ready(), plain.ready()]);
  });
  after(() => Promise.all([pool.close(), plain.close()]));

  it('decodes a stream of batches from many calls, in order, with VAD per call', async () => {
    const scripts = Array.from({ length: 12 }, (_, i) => script(i, ([8000, 16000, 24000] as const)[i % 3]!));
    const received = scripts.map((): Received => ({ pcm: [], events: [], frames: 0 }));
    const calls = scripts.map((s, i) => open(pool, s.rate, received[i]!));
    const frameCounts = scripts.map((s) => s.mulaw.length / FRAME);
    const total = frameCounts.reduce((a, b) => a + b, 0);
    const batchesBefore = pool.stats.batches;
    delays.length = 0;

    // Interleaved like live calls, as base64 payloads and raw bytes; all at once, so many batches
    // are in flight on both workers, and the jittery worker makes some of them finish late.
    for (let f = 0; f < Math.max(...frameCounts); f++) {
      calls.forEach((call, i) => {
        if (f >= frameCounts[i]!) return;
        const frame = scripts[i]!.mulaw.subarray(f * FRAME, (f + 1) * FRAME);
        call.push(i % 2 === 0 ? Buffer.from(frame).toString('base64') : frame);
      });
    }
    await eventually(() => received.reduce((n, r) => n + r.frames, 0) === total);

    scripts.forEach((s, i) => {
      assert.deepEqual(concat(...received[i]!.pcm), s.expectedPcm, `call ${i} PCM`);
      assert.deepEqual(received[i]!.events, s.expectedEvents, `call ${i} VAD events`);
    });
    assert.ok(scripts.some((s) => s.expectedEvents.length === 2), 'some calls contain an utterance');
    assert.ok(pool.stats.batches - batchesBefore >= total / 16);
    assert.equal(pool.stats.inlineBatches, 0);
    assert.equal(delays.length, total);
    assert.ok(delays.every((d) => d >= 0 && d < 5), `delays ${Math.min(...delays)}..${Math.max(...delays)}`);
    assert.deepEqual(errors, []);
    for (const call of calls) call.close();
  });

  it('encodes replies in a worker exactly as inline, without detaching the caller\'s buffer', async () => {
    const pcm = speechLike(24_000 * 2, 24_000);
    const input = Buffer.from(pcm.buffer);
    const frames = await pool.encodeReply(input, 'pcm_24000');
    assert.equal(frames.length, 100);
    assert.deepEqual(frames, splitFrames(toCallAudio(input, 'pcm_24000')));
    assert.equal(input.length, pcm.byteLength, 'input still attached');
    const mulaw = await pool.encodeReply(new Uint8Array(250).fill(0x55), 'ulaw_8000');
    assert.equal(mulaw.length, 2);
  });

  it('ends a speaking call\'s utterance on close and drops its frames in flight', async () => {
    const received: Received = { pcm: [], events: [], frames: 0 };
    const call = open(pool, 8000, received);
    const speech = encodeMulaw(speechLike(8000));
    for (let i = 0; i < 25; i++) call.push(speech.subarray(i * FRAME, (i + 1) * FRAME));
    await eventually(() => received.frames === 25);
    assert.equal(received.events[0]?.type, 'speech-start');
    call.push(speech.subarray(0, FRAME));
    assert.equal(call.close()?.type, 'speech-end');
    await sleep(30);
    assert.equal(received.frames, 25);
    assert.throws(() => call.push(speech.subarray(0, FRAME)), (err) => hasErrorCode(err, 'CONFLICT'));
  });

  it('keeps serving other calls when one call\'s handler throws', async () => {
    const good: Received = { pcm: [], events: [], frames: 0 };
    const bad = pool.openCall({ onAudio: () => { throw new Error('handler broke'); } });
    const ok = open(pool, 8000, good);
    errors.length = 0;
    for (let i = 0; i < 10; i++) {
      bad.push(new Uint8Array(FRAME).fill(0xff));
      ok.push(new Uint8Array(FRAME).fill(0xff));
    }
    await eventually(() => good.frames === 10);
    assert.ok(errors.length >= 1);
    assert.match(String(errors[0]), /handler broke/);
  });

  it('a call that wants no PCM gets the same VAD events from its μ-law on arrival, with nothing batched or decoded', () => {
    const scripts = Array.from({ length: 6 }, (_, i) => script(i, 8000));
    const received = scripts.map((): Received => ({ pcm: [], events: [], frames: 0 }));
    const calls = scripts.map((_, i) =>
      pool.openCall({
        pcm: false,
        onAudio: (audio) => {
          assert.equal(audio.pcm.length, 0);
          received[i]!.events.push(...audio.events);
          received[i]!.frames += audio.frames;
        },
      }),
    );
    const before = { ...pool.stats };
    delays.length = 0;
    let total = 0;
    for (let f = 0; f < scripts[0]!.mulaw.length / FRAME + 40; f++) {
      calls.forEach((call, i) => {
        const frame = scripts[i]!.mulaw.subarray(f * FRAME, (f + 1) * FRAME);
        if (frame.length === 0) return;
        // As base64 payloads and as raw bytes, like the batched path takes them.
        call.push(i % 2 === 0 ? Buffer.from(frame).toString('base64') : frame);
        total++;
      });
    }
    // Synchronous: every event is out before push returns, and the same as VAD on the decoded PCM.
    scripts.forEach((s, i) => assert.deepEqual(received[i]!.events, s.expectedEvents, `call ${i}`));
    assert.ok(scripts.some((s) => s.expectedEvents.length >= 2), 'the scripts contain speech');
    assert.equal(pool.stats.batches, before.batches, 'no batch was built');
    assert.equal(pool.stats.frames, before.frames + total);
    assert.equal(delays.length, total, 'every frame is observed by the frame-delay metric');
    calls.forEach((call) => call.close());
    assert.throws(() => calls[0]!.push(new Uint8Array(FRAME)), (err) => hasErrorCode(err, 'CONFLICT'));
  });

  it('decodes 8 kHz batches inline unless full, sends resampling batches to a worker, and closes cleanly', async () => {
    const narrow: Received = { pcm: [], events: [], frames: 0 };
    const wide: Received = { pcm: [], events: [], frames: 0 };
    const a = script(0, 8000);
    const b = script(1, 16000);
    const callA = open(plain, 8000, narrow);
    const callB = open(plain, 16000, wide);
    for (let f = 0; f < 10; f++) {
      callA.push(a.mulaw.subarray(f * FRAME, (f + 1) * FRAME));
      await sleep(8); // a quiet node: each batch window closes on one frame
    }
    await eventually(() => narrow.frames === 10);
    assert.equal(plain.stats.inlineBatches, plain.stats.batches);
    for (let f = 0; f < 10; f++) callB.push(b.mulaw.subarray(f * FRAME, (f + 1) * FRAME));
    await eventually(() => wide.frames === 10);
    assert.ok(plain.stats.batches > plain.stats.inlineBatches, 'resampling went to the worker');
    assert.deepEqual(concat(...narrow.pcm), a.expectedPcm.subarray(0, 10 * FRAME));
    assert.deepEqual(concat(...wide.pcm), b.expectedPcm.subarray(0, 10 * FRAME * 2));

    // Short of a full batch, 8 kHz frames are decoded inline, however many (200 at once here).
    const before = { ...plain.stats };
    for (let f = 0; f < 200; f++) callA.push(new Uint8Array(FRAME).fill(0xff));
    await eventually(() => narrow.frames === 10 + 200);
    assert.equal(plain.stats.batches, before.batches + 1);
    assert.equal(plain.stats.inlineBatches, before.inlineBatches + 1);
    // A full batch (256 frames, the default limit) goes to a worker.
    for (let f = 0; f < 256; f++) callA.push(new Uint8Array(FRAME).fill(0xff));
    await eventually(() => narrow.frames === 10 + 200 + 256);
    assert.equal(plain.stats.batches, before.batches + 2);
    assert.equal(plain.stats.inlineBatches, before.inlineBatches + 1);

    await plain.close();
    await plain.close(); // idempotent
    assert.equal(plain.threads, 1);
    assert.throws(() => plain.openCall({ onAudio: () => {} }), (err) => hasErrorCode(err, 'UNAVAILABLE'));
  });
});
