import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wavFile } from '@switchboard/sdk';
import { recordedWav } from '../src/voice/recorded-wav.js';

/** 3.6 s of stereo 8 kHz silence: what a provider reports as 4 whole seconds. */
const pcm = Buffer.alloc(Math.round(3.6 * 8000) * 4);

describe('a provider recording as stored', () => {
  it('takes its length from the audio, not the provider’s whole seconds', () => {
    const wav = wavFile(pcm, 8000, 2);
    const stored = recordedWav(wav);
    assert.equal(stored?.seconds, 3.6);
    assert.equal(stored?.audio, wav, 'a well-formed file is kept as it is');
  });

  it('writes the real sizes into the header of a WAV streamed with a size of 0 or 0xFFFFFFFF', () => {
    for (const unknown of [0, 0xffffffff]) {
      const streamed = wavFile(pcm, 8000, 2);
      streamed.writeUInt32LE(unknown, 4);
      streamed.writeUInt32LE(unknown, 40);
      const stored = recordedWav(streamed)!;
      assert.equal(stored.seconds, 3.6);
      assert.equal(stored.audio.readUInt32LE(4), streamed.length - 8);
      assert.equal(stored.audio.readUInt32LE(40), pcm.length);
      assert.equal(streamed.readUInt32LE(40), unknown, 'the fetched buffer is left alone');
    }
  });

  it('finds the data after other chunks, and leaves what is not a PCM WAV to the provider’s figure', () => {
    const plain = wavFile(pcm, 8000, 2);
    const list = Buffer.concat([Buffer.from('LIST', 'latin1'), Buffer.from([5, 0, 0, 0]), Buffer.from('INFOx', 'latin1'), Buffer.alloc(1)]);
    const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
    withList.writeUInt32LE(withList.length - 8, 4);
    assert.equal(recordedWav(withList)?.seconds, 3.6);
    assert.equal(recordedWav(Buffer.from('ID3\u0003 not a wav at all')), undefined);
    assert.equal(recordedWav(Buffer.alloc(0)), undefined);
  });
});
