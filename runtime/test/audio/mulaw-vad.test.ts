// VAD straight from μ-law (no decoding) against VAD on the decoded PCM: the features must be equal,
// bit for bit, so every decision is the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMulaw, encodeMulaw } from '../../src/audio/g711.js';
import { VoiceActivityDetector, frameFeatures, mulawFrameFeatures, type VadEvent } from '../../src/audio/vad.js';
import { concat, mix, noise, speechLike, tone } from './signals.js';

const FRAME = 160;

/** Test signals as μ-law: speech with pauses, a tone, noise, silence, clipping, and every code. */
function signals(): Record<string, Uint8Array> {
  const everyCode = new Uint8Array(FRAME * 8);
  for (let i = 0; i < everyCode.length; i++) everyCode[i] = (i * 37) & 0xff;
  const clipped = tone(300, 8000, 8000, 40_000);
  const pcm = {
    'speech, pauses and noise': mix(concat(new Int16Array(4000), speechLike(12_000), new Int16Array(8000), speechLike(6000), new Int16Array(9600)), noise(39_600, 40, 7)),
    'a loud tone after silence': concat(new Int16Array(2400), tone(700, 8000, 8000, 9000), new Int16Array(8000)),
    'white noise': noise(16_000, 3000, 3),
    'digital silence': new Int16Array(4800),
    'a clipped tone': clipped,
  };
  const out: Record<string, Uint8Array> = { 'every μ-law code': everyCode };
  for (const [name, samples] of Object.entries(pcm)) out[name] = encodeMulaw(samples.subarray(0, Math.floor(samples.length / FRAME) * FRAME));
  // μ-law has two codes for zero (0x7f and 0xff): both must count as non-negative, as decoded.
  // Alternating with each other or with positive samples they make no zero crossing.
  out['both zero codes'] = new Uint8Array(Array.from({ length: FRAME * 2 }, (_, i) => (i % 2 === 0 ? 0x7f : i < FRAME ? 0xff : 0xf0)));
  return out;
}

function decisions(mulaw: Uint8Array, features: (frame: Uint8Array) => ReturnType<typeof frameFeatures>): VadEvent[] {
  const vad = new VoiceActivityDetector();
  const events: VadEvent[] = [];
  for (let i = 0; i < mulaw.length; i += FRAME) {
    const event = vad.push(features(mulaw.subarray(i, i + FRAME)), 20);
    if (event) events.push(event);
  }
  const last = vad.finish();
  if (last) events.push(last);
  return events;
}

describe('VAD on μ-law bytes', () => {
  for (const [name, mulaw] of Object.entries(signals())) {
    it(`${name}: each frame's features equal those of the decoded samples`, () => {
      for (let i = 0; i < mulaw.length; i += FRAME) {
        assert.deepEqual(mulawFrameFeatures(mulaw, i, i + FRAME), frameFeatures(decodeMulaw(mulaw.subarray(i, i + FRAME))), `frame ${i / FRAME}`);
      }
    });
  }

  it('the detector makes the same decisions on μ-law as on the decoded PCM', () => {
    const all = signals();
    let utterances = 0;
    for (const [name, mulaw] of Object.entries(all)) {
      const fromPcm = decisions(mulaw, (frame) => frameFeatures(decodeMulaw(frame)));
      assert.deepEqual(decisions(mulaw, (frame) => mulawFrameFeatures(frame)), fromPcm, name);
      utterances += fromPcm.filter((e) => e.type === 'speech-end').length;
    }
    // The signals exercise the detector: the speech has two utterances, the tone one.
    assert.ok(utterances >= 3, `only ${utterances} utterances detected in the test signals`);
  });

  it('an empty range is silence', () => {
    assert.deepEqual(mulawFrameFeatures(new Uint8Array(0)), frameFeatures(new Int16Array(0)));
  });
});
