import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countSegments, decodeMulaw, encodeAlaw, encodeMulaw, speechDurationMs, synthesizeSpeech, wavFile } from '../src/index.js';

describe('G.711', () => {
  it('round-trips μ-law within its quantisation error', () => {
    const samples = Int16Array.from([0, 1, -1, 100, -100, 1000, -1000, 8000, -8000, 32767, -32768]);
    const decoded = decodeMulaw(encodeMulaw(samples));
    samples.forEach((s, i) => {
      const error = Math.abs(decoded[i]! - s);
      assert.ok(error <= Math.max(8, Math.abs(s) * 0.07), `sample ${s} decoded as ${decoded[i]}`);
    });
    assert.equal(encodeMulaw(Int16Array.from([0]))[0], 0xff, 'silence is 0xFF');
  });

  it('encodes A-law silence and signs', () => {
    const bytes = encodeAlaw(Int16Array.from([0, 1000, -1000, 32767]));
    assert.equal(bytes[0], 0xd5);
    assert.equal(bytes[1], 0xfa);
    assert.equal(bytes[2], 0x7a, 'negative differs in the sign bit only');
    assert.equal(bytes[3], 0xaa, 'full scale');
  });
});

describe('speech synthesis', () => {
  it('lasts 60 ms per character with a 300 ms floor', () => {
    assert.equal(speechDurationMs('ab'), 300);
    assert.equal(speechDurationMs('a'.repeat(10)), 600);
    assert.equal(synthesizeSpeech('a'.repeat(10), 8000).length, 4800);
    assert.equal(synthesizeSpeech('Hi', 16000).length, 4800);
  });

  it('sounds voiced: pitch in the speech range, level well above silence', () => {
    const samples = synthesizeSpeech('aaaaaaaaaaaaaaaaaaaa', 16000);
    let crossings = 0;
    let energy = 0;
    for (let i = 1; i < samples.length; i++) {
      if ((samples[i - 1]! < 0) !== (samples[i]! < 0)) crossings++;
      energy += samples[i]! ** 2;
    }
    const seconds = samples.length / 16000;
    const rms = Math.sqrt(energy / samples.length);
    assert.ok(rms > 1000, `rms ${rms}`);
    assert.ok(crossings / seconds / 2 > 80 && crossings / seconds / 2 < 1500, `${crossings / seconds / 2} Hz`);
  });

  it('is deterministic per text and differs between texts', () => {
    assert.deepEqual(synthesizeSpeech('same text', 8000), synthesizeSpeech('same text', 8000));
    assert.notDeepEqual(synthesizeSpeech('one text', 8000), synthesizeSpeech('two text', 8000));
  });

  it('writes a valid WAV header', () => {
    const wav = wavFile(synthesizeSpeech('hi', 22050), 22050);
    assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
    assert.equal(wav.toString('ascii', 8, 12), 'WAVE');
    assert.equal(wav.readUInt32LE(24), 22050);
    assert.equal(wav.readUInt32LE(40), wav.length - 44);
  });
});

describe('SMS segments', () => {
  it('counts GSM-7 and UCS-2 like Twilio', () => {
    assert.equal(countSegments(''), 1);
    assert.equal(countSegments('a'.repeat(160)), 1);
    assert.equal(countSegments('a'.repeat(161)), 2);
    assert.equal(countSegments('a'.repeat(306)), 2);
    assert.equal(countSegments('a'.repeat(307)), 3);
    assert.equal(countSegments('€'.repeat(80)), 1, 'extension characters cost two septets');
    assert.equal(countSegments('€'.repeat(81)), 2);
    assert.equal(countSegments('é'.repeat(160)), 1, 'é is in the GSM-7 basic table');
    assert.equal(countSegments('ж'.repeat(70)), 1);
    assert.equal(countSegments('ж'.repeat(71)), 2);
    assert.equal(countSegments('ж'.repeat(134)), 2);
    assert.equal(countSegments('ж'.repeat(135)), 3);
    assert.equal(countSegments('😀'.repeat(35)), 1, 'surrogate pairs count two units');
    assert.equal(countSegments('😀'.repeat(36)), 2);
  });
});
