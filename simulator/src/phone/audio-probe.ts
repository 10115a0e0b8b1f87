/** What fetching a `<Play>` URL gave. */
export interface AudioProbe {
  /** HTTP status of the fetch; 0 when it could not be fetched. */
  status: number;
  contentType: string;
  bytes: number;
  /** Whether the bytes are audio (WAV, MP3, Ogg, FLAC or raw audio/*). */
  audio: boolean;
  durationMs: number;
  error?: string;
}

const MAX_BYTES = 20 * 1024 * 1024;
const TIMEOUT_MS = 10_000;
/** MPEG-1 Layer III bitrates (kbit/s) by header index. */
const MP3_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0];

function wavDurationMs(b: Buffer): number | undefined {
  let byteRate = 0;
  for (let at = 12; at + 8 <= b.length; ) {
    const id = b.toString('ascii', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 16 <= b.length) byteRate = b.readUInt32LE(at + 16);
    if (id === 'data') return byteRate > 0 ? (Math.min(size, b.length - at - 8) * 1000) / byteRate : undefined;
    at += 8 + size + (size % 2);
  }
  return undefined;
}

function mp3DurationMs(b: Buffer): number {
  let at = 0;
  if (b.toString('latin1', 0, 3) === 'ID3' && b.length >= 10) {
    at = 10 + (((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f));
  }
  const kbps = at + 2 < b.length && b[at] === 0xff && (b[at + 1]! & 0xe0) === 0xe0 ? MP3_KBPS[b[at + 2]! >> 4] || 128 : 128;
  return ((b.length - at) * 8) / kbps;
}

/** Recognises audio by its bytes (WAV, MP3, Ogg, FLAC) or an audio/* type, and estimates how long it plays. */
export function sniffAudio(contentType: string, body: Buffer): { audio: boolean; durationMs: number } {
  const type = contentType.toLowerCase();
  const head = body.toString('latin1', 0, 4);
  if (head === 'RIFF' && body.toString('latin1', 8, 12) === 'WAVE') {
    const ms = wavDurationMs(body);
    return { audio: ms !== undefined, durationMs: ms ?? 0 };
  }
  const mp3 = head.startsWith('ID3') || (body.length > 2 && body[0] === 0xff && (body[1]! & 0xe0) === 0xe0);
  if (mp3) return { audio: true, durationMs: mp3DurationMs(body) };
  if (head === 'OggS' || head === 'fLaC') return { audio: true, durationMs: (body.length * 8) / 64 };
  if (type.startsWith('audio/basic') || type.includes('mulaw') || type.includes('x-ulaw')) return { audio: body.length > 0, durationMs: body.length / 8 };
  if (type.startsWith('audio/') && body.length > 0) return { audio: true, durationMs: (body.length * 8) / 128 };
  return { audio: false, durationMs: 0 };
}

/** Fetches a URL as Twilio fetches `<Play>` audio, and checks the answer is audio. */
export async function probeAudio(url: string): Promise<AudioProbe> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { 'user-agent': 'TwilioProxy/1.1' } });
    const contentType = res.headers.get('content-type') ?? '';
    const body = Buffer.from(await res.arrayBuffer());
    if (!res.ok) return { status: res.status, contentType, bytes: body.length, audio: false, durationMs: 0, error: `HTTP ${res.status}` };
    if (body.length > MAX_BYTES) return { status: res.status, contentType, bytes: body.length, audio: false, durationMs: 0, error: 'larger than 20 MB' };
    const sniffed = sniffAudio(contentType, body);
    const probe: AudioProbe = { status: res.status, contentType, bytes: body.length, ...sniffed };
    if (!sniffed.audio) probe.error = `not audio (${contentType || 'no content type'})`;
    return probe;
  } catch (err) {
    return { status: 0, contentType: '', bytes: 0, audio: false, durationMs: 0, error: (err as Error).message };
  }
}
