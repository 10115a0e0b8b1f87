/**
 * A provider's recording as it is stored: a RIFF/WAVE file whose header states its real size, and its
 * length in seconds read from the audio itself. A provider reports the length in whole seconds
 * (Twilio's `RecordingDuration`), and a WAV written while streaming may state its data size as 0 or
 * 0xFFFFFFFF: a browser's player then shows 0:00 or a length other than the page's.
 */
export function recordedWav(audio: Buffer): { audio: Buffer; seconds: number } | undefined {
  if (audio.length < 12 || audio.toString('latin1', 0, 4) !== 'RIFF' || audio.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let byteRate = 0;
  for (let at = 12; at + 8 <= audio.length; ) {
    const id = audio.toString('latin1', at, at + 4);
    const size = audio.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 20 <= audio.length) byteRate = audio.readUInt32LE(at + 16);
    if (id === 'data') {
      if (byteRate === 0) return undefined;
      // Whatever the header says, the data runs to the end of the file (a streamed WAV's header was written first).
      const dataBytes = audio.length - (at + 8);
      if (size !== dataBytes || audio.readUInt32LE(4) !== audio.length - 8) {
        audio = Buffer.from(audio);
        audio.writeUInt32LE(audio.length - 8, 4);
        audio.writeUInt32LE(dataBytes, at + 4);
      }
      return { audio, seconds: dataBytes / byteRate };
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}
