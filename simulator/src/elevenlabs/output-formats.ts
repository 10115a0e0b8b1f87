import { pcm16le, synthesizeSpeech, wavFile } from '../audio.js';
import { encodeAlaw, encodeMulaw } from '../g711.js';

/** An audio format the simulator can really produce. */
export interface OutputFormat {
  name: string;
  codec: 'pcm' | 'ulaw' | 'alaw' | 'wav';
  sampleRate: number;
  contentType: string;
}

const PCM_RATES = [8000, 16000, 22050, 24000, 32000, 44100, 48000];
const CONTENT_TYPES = { pcm: 'audio/pcm', ulaw: 'audio/basic', alaw: 'audio/x-alaw-basic', wav: 'audio/wav' } as const;

/** ElevenLabs' default when output_format is absent. */
export const DEFAULT_OUTPUT_FORMAT = 'mp3_44100_128';

/** Formats produced: `pcm_*`/`wav_*` at ElevenLabs' rates, `ulaw_8000`, `alaw_8000`. MP3 and Opus are not. */
export const SUPPORTED_OUTPUT_FORMATS: readonly string[] = [
  ...PCM_RATES.map((r) => `pcm_${r}`),
  'ulaw_8000',
  'alaw_8000',
  ...PCM_RATES.map((r) => `wav_${r}`),
];

export function parseOutputFormat(name: string): OutputFormat | undefined {
  const m = /^(pcm|ulaw|alaw|wav)_(\d+)$/.exec(name);
  if (!m) return undefined;
  const codec = m[1] as OutputFormat['codec'];
  const sampleRate = Number(m[2]);
  const ok = codec === 'ulaw' || codec === 'alaw' ? sampleRate === 8000 : PCM_RATES.includes(sampleRate);
  return ok ? { name, codec, sampleRate, contentType: CONTENT_TYPES[codec] } : undefined;
}

const CACHE_LIMIT = 64;
const rendered = new Map<string, Buffer>();

/**
 * Speech-like audio for `text`, encoded in `format`. The synthesis is the same every time for the
 * same text, so the latest renders are kept: a load of calls whose agent says the same lines does not
 * stall the simulator's event loop (and every phone's frame clock) synthesising them again.
 */
export function renderSpeech(text: string, format: OutputFormat): Buffer {
  const key = `${format.name}\n${text}`;
  const hit = rendered.get(key);
  if (hit) {
    rendered.delete(key);
    rendered.set(key, hit);
    return hit;
  }
  const audio = encodeSpeech(text, format);
  rendered.set(key, audio);
  if (rendered.size > CACHE_LIMIT) rendered.delete(rendered.keys().next().value as string);
  return audio;
}

function encodeSpeech(text: string, format: OutputFormat): Buffer {
  const samples = synthesizeSpeech(text, format.sampleRate);
  switch (format.codec) {
    case 'ulaw':
      return encodeMulaw(samples);
    case 'alaw':
      return encodeAlaw(samples);
    case 'wav':
      return wavFile(samples, format.sampleRate);
    default:
      return pcm16le(samples);
  }
}
