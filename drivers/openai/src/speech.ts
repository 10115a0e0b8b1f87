import type OpenAI from 'openai';
import { ErrorCodes, SwitchboardError, providerError, type AudioFormat, type SpeechSynthesis, type SynthesizedAudio, type VoiceInfo } from '@switchboard/sdk';
import { statusOf } from './client.js';
import { convertPcm, SAMPLE_RATES } from './pcm.js';
import { DEFAULT_MODEL, DEFAULT_VOICE, type OpenAiSettings } from './settings.js';

/** OpenAI's built-in voices (the API has no endpoint listing them). */
export const VOICES: readonly string[] = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Text-to-speech through `audio.speech.create`, asking for `pcm` (24 kHz 16-bit mono, no header)
 * and converting it to the format asked for here, so no decoder is needed.
 */
export function openAiSpeech(client: OpenAI, settings: OpenAiSettings): SpeechSynthesis {
  const model = settings.model ?? DEFAULT_MODEL;
  return {
    async synthesize({ text, voice, format }): Promise<SynthesizedAudio> {
      const sampleRate = SAMPLE_RATES[format as AudioFormat];
      if (sampleRate === undefined) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `OpenAI cannot synthesise ${String(format)}; use ${Object.keys(SAMPLE_RATES).join(', ')}.`);
      if (text.trim() === '') throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'There is no text to synthesise.');
      // The model reads the language from the text itself; the API takes no language parameter.
      let pcm: Buffer;
      try {
        const response = await client.audio.speech.create({ model, voice: voice ?? settings.voice ?? DEFAULT_VOICE, input: text, response_format: 'pcm' });
        pcm = Buffer.from(await response.arrayBuffer());
      } catch (err) {
        throw providerError('openai', err, statusOf(err));
      }
      return { audio: convertPcm(pcm, format), format, sampleRate };
    },

    voices(): Promise<VoiceInfo[]> {
      return Promise.resolve(VOICES.map((id) => ({ id, name: capitalised(id) })));
    },
  };
}
