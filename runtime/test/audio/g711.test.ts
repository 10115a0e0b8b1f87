import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  alawToLinear,
  decodeAlaw,
  decodeMulaw,
  encodeAlaw,
  encodeMulaw,
  linearToAlaw,
  linearToMulaw,
  mulawToLinear,
} from '../../src/audio/g711.js';
import { snrDb, tone } from './signals.js';

const everySample = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
const everyCode = Uint8Array.from({ length: 256 }, (_, i) => i);
const sha256 = (view: Uint8Array | Int16Array): string => createHash('sha256').update(new Uint8Array(view.buffer, view.byteOffset, view.byteLength)).digest('hex');

describe('G.711 against an independent implementation', () => {
  // SHA-256 of CPython's audioop output (lin2ulaw/lin2alaw over every 16-bit sample from -32768
  // up, ulaw2lin/alaw2lin over every code as little-endian int16), computed once offline.
  it('encodes every 16-bit sample and decodes every code exactly as CPython audioop does', () => {
    assert.equal(sha256(encodeMulaw(everySample)), '81d633c9e6972a18c74a58720b96cb8ca0bdd096d4060b646dd708c3b846019a');
    assert.equal(sha256(encodeAlaw(everySample)), '38488f6fd710f4686360edc4d38639f96c491595ef93f8eb8d62d5e07ca6ce7b');
    assert.equal(sha256(decodeMulaw(everyCode)), '3dab54339e520bb2c924826e3b72a917a2b612e9fd12fc867500f1d983a75827');
    assert.equal(sha256(decodeAlaw(everyCode)), 'e04788d110e58ff8c70c93b8480190d973e3b67876b6119abbaec766cc75c174');
  });
});

describe('G.711 μ-law', () => {
  it('matches the ITU-T reference values', () => {
    assert.equal(mulawToLinear(0xff), 0);
    assert.equal(mulawToLinear(0x7f), 0);
    assert.equal(mulawToLinear(0x80), 32124);
    assert.equal(mulawToLinear(0x00), -32124);
    assert.equal(mulawToLinear(0xfe), 8);
    assert.equal(mulawToLinear(0x7e), -8);
    assert.equal(linearToMulaw(0), 0xff);
    assert.equal(linearToMulaw(32767), 0x80);
    assert.equal(linearToMulaw(-32768), 0x00);
    assert.equal(linearToMulaw(1000), 0xce);
    assert.equal(mulawToLinear(0xce), 988);
  });

  it('tables agree with the reference algorithm for every input', () => {
    const encoded = encodeMulaw(everySample);
    for (let i = 0; i < everySample.length; i++) {
      if (encoded[i] !== linearToMulaw(everySample[i]!)) assert.fail(`encode ${everySample[i]}: ${encoded[i]} ≠ ${linearToMulaw(everySample[i]!)}`);
    }
    assert.deepEqual([...decodeMulaw(everyCode)], [...everyCode].map(mulawToLinear));
  });

  it('re-encodes every decoded value to its code (0x7f is the second zero)', () => {
    for (let code = 0; code < 256; code++) {
      assert.equal(linearToMulaw(mulawToLinear(code)), code === 0x7f ? 0xff : code, `code ${code}`);
    }
  });

  it('round-trips a full-scale sine with SNR well above 35 dB', () => {
    const sine = tone(1019, 8000, 8000, 32_000);
    const snr = snrDb(sine, decodeMulaw(encodeMulaw(sine)));
    assert.ok(snr > 37, `SNR ${snr.toFixed(1)} dB`);
  });

  it('writes into a caller buffer without allocating, and refuses one that is too small', () => {
    const src = tone(440, 8000, 160);
    const bytes = new Uint8Array(160);
    const samples = new Int16Array(160);
    assert.equal(encodeMulaw(src, bytes), bytes);
    assert.equal(decodeMulaw(bytes, samples), samples);
    const larger = new Int16Array(400);
    assert.equal(decodeMulaw(bytes, larger).length, 160);
    assert.equal(decodeMulaw(bytes, larger).buffer, larger.buffer);
    assert.throws(() => decodeMulaw(bytes, new Int16Array(10)), RangeError);
  });
});

describe('G.711 A-law', () => {
  it('matches the ITU-T reference values', () => {
    assert.equal(alawToLinear(0xd5), 8);
    assert.equal(alawToLinear(0x55), -8);
    assert.equal(alawToLinear(0xaa), 32256);
    assert.equal(alawToLinear(0x2a), -32256);
    assert.equal(linearToAlaw(0), 0xd5);
    assert.equal(linearToAlaw(-1), 0x55);
    assert.equal(linearToAlaw(32767), 0xaa);
    assert.equal(linearToAlaw(-32768), 0x2a);
    assert.equal(linearToAlaw(1000), 0xfa);
    assert.equal(alawToLinear(0xfa), 1008);
  });

  it('tables agree with the reference algorithm for every input', () => {
    const encoded = encodeAlaw(everySample);
    for (let i = 0; i < everySample.length; i++) {
      if (encoded[i] !== linearToAlaw(everySample[i]!)) assert.fail(`encode ${everySample[i]}: ${encoded[i]} ≠ ${linearToAlaw(everySample[i]!)}`);
    }
    assert.deepEqual([...decodeAlaw(everyCode)], [...everyCode].map(alawToLinear));
  });

  it('re-encodes every decoded value to its code', () => {
    for (let code = 0; code < 256; code++) assert.equal(linearToAlaw(alawToLinear(code)), code, `code ${code}`);
  });

  it('round-trips a full-scale sine with SNR well above 35 dB', () => {
    const sine = tone(1019, 8000, 8000, 32_000);
    const snr = snrDb(sine, decodeAlaw(encodeAlaw(sine)));
    assert.ok(snr > 37, `SNR ${snr.toFixed(1)} dB`);
  });
});
