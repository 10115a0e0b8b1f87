import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FramePacer } from '../../src/audio/pacer.js';

const frames = (n: number, tag = 0): Uint8Array[] => Array.from({ length: n }, (_, i) => Uint8Array.of(tag, i));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('frame pacer', () => {
  it('plays one frame per 20 ms against the clock, without drift', async () => {
    const sentAt: number[] = [];
    const pacer = new FramePacer({ send: () => sentAt.push(performance.now()), leadFrames: 0 });
    const started = performance.now();
    pacer.enqueue(frames(50));
    await pacer.drained();
    assert.equal(sentAt.length, 50);
    const errors = sentAt.map((t, i) => t - started - i * 20);
    // A timer fires late by a few ms on a busy machine, but each frame is scheduled against the
    // start, so lateness never accumulates: the frames of the last 200 ms are as close to due as
    // the first (a setInterval-style pacer drifts by tens of ms over a second).
    assert.ok(median(errors.map(Math.abs)) <= 5, `median error ${median(errors.map(Math.abs)).toFixed(2)} ms`);
    const drift = median(errors.slice(-10)) - median(errors.slice(0, 10));
    assert.ok(Math.abs(drift) <= 3, `drifted ${drift.toFixed(2)} ms over ~1 s`);
    assert.ok(errors.every((e) => e >= -1.5), 'no frame goes out early');
  });

  it('sends the lead frames at once, then a mark after each chunk', async () => {
    const log: string[] = [];
    const pacer = new FramePacer({ send: (f) => log.push(`${f[0]}:${f[1]}`), mark: (name) => log.push(`mark ${name}`), leadFrames: 2 });
    pacer.enqueue(frames(3, 1), 'first');
    pacer.enqueue(frames(2, 2), 'second');
    // The lead of 2 plus the frame due now; the chunk's mark follows its last frame at once.
    assert.deepEqual(log, ['1:0', '1:1', '1:2', 'mark first']);
    await pacer.drained();
    assert.deepEqual(log, ['1:0', '1:1', '1:2', 'mark first', '2:0', '2:1', 'mark second']);
  });

  it('continues the running timeline when a chunk arrives mid-playback', async () => {
    const sentAt: number[] = [];
    const pacer = new FramePacer({ send: () => sentAt.push(performance.now()), leadFrames: 0 });
    const started = performance.now();
    pacer.enqueue(frames(10));
    await sleep(90);
    pacer.enqueue(frames(10));
    await pacer.drained();
    assert.equal(sentAt.length, 20);
    // The second chunk follows the first on the same 20 ms grid: not early, not restarted.
    const errors = sentAt.map((t, i) => t - started - i * 20);
    assert.ok(errors.every((e) => e >= -1.5), `early: ${errors.map((e) => e.toFixed(1)).join(' ')}`);
    assert.ok(median(errors.slice(10)) <= 8, `late: ${errors.map((e) => e.toFixed(1)).join(' ')}`);
  });

  it('stops at once on barge-in and reports what was not sent', async () => {
    let sent = 0;
    const marks: string[] = [];
    const pacer = new FramePacer({ send: () => sent++, mark: (m) => marks.push(m), leadFrames: 0 });
    pacer.enqueue(frames(50), 'reply');
    await sleep(105);
    const dropped = pacer.stop();
    assert.equal(sent + dropped, 50);
    assert.ok(sent >= 5 && sent <= 12, `sent ${sent} in ~105 ms`);
    assert.equal(pacer.pending, 0);
    await pacer.drained();
    await sleep(60);
    assert.equal(sent, 50 - dropped, 'nothing sent after stop');
    assert.deepEqual(marks, [], 'the mark of an interrupted chunk is not sent');
  });

  it('stops from inside a send callback without sending another frame', async () => {
    let sent = 0;
    const pacer = new FramePacer({
      send: () => {
        if (++sent === 3) assert.equal(pacer.stop(), 7);
      },
      leadFrames: 5,
    });
    pacer.enqueue(frames(10));
    assert.equal(sent, 3);
    await sleep(50);
    assert.equal(sent, 3);
    // Usable again afterwards: a new reply starts a new timeline.
    pacer.enqueue(frames(2));
    await pacer.drained();
    assert.equal(sent, 5);
  });
});
