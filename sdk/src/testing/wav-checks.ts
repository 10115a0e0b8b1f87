import assert from 'node:assert/strict';

/** What a WAV file's header says: its encoding, channels, rate and length. */
export interface WavInfo {
  /** 1: PCM, 7: μ-law. */
  readonly format: number;
  readonly channels: number;
  readonly sampleRate: number;
  readonly bitsPerSample: number;
  /** Offset and length of the `data` chunk's samples. */
  readonly dataOffset: number;
  readonly dataBytes: number;
  readonly seconds: number;
}

/** Asserts `file` is a RIFF/WAVE file of PCM or μ-law audio with a `data` chunk, and reads its header. */
export function assertWav(file: Buffer): WavInfo {
  assert.ok(file.length >= 44, 'a WAV file has at least a 44-byte header');
  assert.equal(file.toString('ascii', 0, 4), 'RIFF', 'a WAV file starts with RIFF');
  assert.equal(file.toString('ascii', 8, 12), 'WAVE', 'a RIFF file of WAVE form');
  let fmt: Omit<WavInfo, 'dataOffset' | 'dataBytes' | 'seconds'> | undefined;
  for (let at = 12; at + 8 <= file.length; ) {
    const id = file.toString('ascii', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    if (id === 'fmt ') {
      fmt = { format: file.readUInt16LE(at + 8), channels: file.readUInt16LE(at + 10), sampleRate: file.readUInt32LE(at + 12), bitsPerSample: file.readUInt16LE(at + 22) };
    } else if (id === 'data') {
      assert.ok(fmt, 'the fmt chunk comes before the data chunk');
      assert.ok(fmt.format === 1 || fmt.format === 7, `WAV format ${fmt.format} is neither PCM (1) nor μ-law (7)`);
      assert.ok(fmt.channels >= 1 && fmt.sampleRate > 0 && fmt.bitsPerSample > 0, 'the fmt chunk names channels, a rate and a sample size');
      const dataBytes = Math.min(size, file.length - at - 8);
      const frameBytes = (fmt.channels * fmt.bitsPerSample) / 8;
      return { ...fmt, dataOffset: at + 8, dataBytes, seconds: dataBytes / frameBytes / fmt.sampleRate };
    }
    at += 8 + size + (size % 2);
  }
  assert.fail('a WAV file has a data chunk');
}
