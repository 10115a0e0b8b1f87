import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrameClock } from '../src/phone/frame-clock.js';

describe('the phone media clock', () => {
  it('ticks every listener every 20 ms, a quarter of them at each 5 ms phase', async () => {
    const clock = new FrameClock(20);
    const ticks = Array.from({ length: 8 }, () => [] as number[]);
    for (const seen of ticks) clock.add({ onTick: (dueAt) => void seen.push(dueAt) });
    await new Promise((resolve) => setTimeout(resolve, 250));
    clock.stop();
    assert.equal(clock.size, 0);
    for (const seen of ticks) {
      assert.ok(seen.length >= 8, `ticked ${seen.length} times in 250 ms`);
      for (let i = 1; i < seen.length; i++) assert.ok(Math.abs(seen[i]! - seen[i - 1]! - 20) < 1e-6, 'on a 20 ms grid');
    }
    // Each listener's offset within the 20 ms frame: four phases, two listeners in each.
    const first = Math.min(...ticks.map((seen) => seen[0]!));
    const phases = ticks.map((seen) => Math.round((seen[0]! - first) % 20));
    assert.deepEqual([...phases].sort((a, b) => a - b), [0, 0, 5, 5, 10, 10, 15, 15]);
  });
});
