/** The 44-byte RIFF/WAVE header of `dataBytes` of 16-bit little-endian PCM, mono or with `channels` interleaved. */
export function wavHeader(dataBytes: number, sampleRate: number, channels = 1): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2 * channels, 28);
  header.writeUInt16LE(2 * channels, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** A RIFF/WAVE file around 16-bit little-endian PCM bytes, mono or with `channels` interleaved. */
export function wavFile(pcm: Buffer, sampleRate: number, channels = 1): Buffer {
  return Buffer.concat([wavHeader(pcm.length, sampleRate, channels), pcm]);
}
