import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MULAW_FRAME_BYTES, needsResampling, splitFrames, toCallAudio } from '../../src/audio/framing.js';
import { MULAW_SILENCE, decodeMulaw, encodeMulaw } from '../../src/audio/g711.js';
import { amplitudeAt, db, tone } from './signals.js';

const bytesOf = (pcm: Int16Array): Buffer => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

describe('reply framing', () => {
  it('cuts a second of audio in any format into fifty 160-byte μ-law frames', () => {
    const cases = [
      toCallAudio(encodeMulaw(tone(440, 8000, 8000)), 'ulaw_8000'),
      toCallAudio(bytesOf(tone(440, 8000, 8000)), 'pcm_8000'),
      toCallAudio(bytesOf(tone(440, 16000, 16000)), 'pcm_16000'),
      toCallAudio(bytesOf(tone(440, 24000, 24000)), 'pcm_24000'),
    ];
    for (const audio of cases) {
      const frames = splitFrames(audio);
      assert.equal(frames.length, 50);
      assert.ok(frames.every((f) => f.length === MULAW_FRAME_BYTES));
    }
  });

  it('pads a partial last frame with μ-law silence', () => {
    const frames = splitFrames(toCallAudio(new Uint8Array(1000).fill(0x10), 'ulaw_8000'));
    assert.equal(frames.length, 7);
    const last = frames[6]!;
    assert.equal(last.length, 160);
    assert.ok(last.subarray(0, 40).every((b) => b === 0x10));
    assert.ok(last.subarray(40).every((b) => b === MULAW_SILENCE));
    // 1.01 s of 24 kHz PCM → 8080 samples at 8 kHz → 51 frames.
    assert.equal(splitFrames(toCallAudio(bytesOf(tone(300, 24000, 24240)), 'pcm_24000')).length, 51);
  });

  it('cuts into longer frames too (100 ms messages), the last padded with silence', () => {
    const audio = toCallAudio(new Uint8Array(1000).fill(0x10), 'ulaw_8000');
    const frames = splitFrames(audio, 800);
    assert.deepEqual(frames.map((f) => f.length), [800, 800]);
    assert.equal(frames[0]!.buffer, audio.buffer, 'a whole frame is a view, not a copy');
    assert.ok(frames[1]!.subarray(0, 200).every((b) => b === 0x10));
    assert.ok(frames[1]!.subarray(200).every((b) => b === MULAW_SILENCE));
  });

  it('keeps a speech-band tone and removes what 8 kHz cannot carry', () => {
    const voiced = tone(1000, 24000, 24000, 8000);
    const hiss = tone(6000, 24000, 24000, 8000);
    const mixed = voiced.map((v, i) => v + hiss[i]!);
    const decoded = decodeMulaw(toCallAudio(bytesOf(Int16Array.from(mixed)), 'pcm_24000'));
    assert.ok(Math.abs(db(amplitudeAt(decoded, 1000, 8000, 400, 7600) / 8000)) < 0.5);
    // 6 kHz would alias to 2 kHz.
    assert.ok(db(amplitudeAt(decoded, 2000, 8000, 400, 7600) / 8000) < -40);
  });

  it('reads PCM from a misaligned Buffer', () => {
    const pcm = tone(440, 8000, 160, 5000);
    const backing = Buffer.alloc(321);
    bytesOf(pcm).copy(backing, 1);
    const audio = toCallAudio(backing.subarray(1), 'pcm_8000');
    assert.deepEqual(audio, encodeMulaw(pcm));
  });

  it('frames without copying, and knows which formats need resampling', () => {
    const audio = new Uint8Array(480);
    const frames = splitFrames(audio);
    assert.ok(frames.every((f) => f.buffer === audio.buffer));
    assert.deepEqual(['ulaw_8000', 'pcm_8000', 'pcm_16000', 'pcm_24000'].map((f) => needsResampling(f as never)), [false, false, true, true]);
  });
});
