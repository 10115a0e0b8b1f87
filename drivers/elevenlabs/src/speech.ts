import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { ErrorCodes, SwitchboardError, providerError, type AudioFormat, type SpeechSynthesis, type SynthesizedAudio, type VoiceInfo } from '@switchboard/sdk';
import { statusOf } from './client.js';
import { DEFAULT_MODEL_ID, DEFAULT_VOICE_ID, type ElevenLabsSettings } from './settings.js';

/** Switchboard's audio formats are ElevenLabs output formats of the same name. */
const SAMPLE_RATES: Readonly<Record<AudioFormat, number>> = { ulaw_8000: 8000, pcm_8000: 8000, pcm_16000: 16000, pcm_24000: 24000 };

/** Only these models accept `language_code`; ElevenLabs answers 400 when another model is given one. */
const LANGUAGE_CODE_MODELS = /^eleven_(flash|turbo)_v2_5$/;

/** Text-to-speech through `textToSpeech.convert` and the voice library. */
export function elevenLabsSpeech(client: ElevenLabsClient, settings: ElevenLabsSettings): SpeechSynthesis {
  const modelId = settings.modelId ?? DEFAULT_MODEL_ID;
  return {
    async synthesize({ text, voice, format, language }): Promise<SynthesizedAudio> {
      const sampleRate = SAMPLE_RATES[format];
      if (sampleRate === undefined) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `ElevenLabs cannot synthesise ${String(format)}; use ${Object.keys(SAMPLE_RATES).join(', ')}.`);
      if (text.trim() === '') throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'There is no text to synthesise.');
      const languageCode = language && LANGUAGE_CODE_MODELS.test(modelId) ? language.split(/[-_]/)[0]!.toLowerCase() : undefined;
      let audio: Buffer;
      try {
        const stream = await client.textToSpeech.convert(voice ?? settings.defaultVoiceId ?? DEFAULT_VOICE_ID, {
          text,
          modelId,
          outputFormat: format,
          ...(languageCode ? { languageCode } : {}),
        });
        audio = Buffer.from(await new Response(stream).arrayBuffer());
      } catch (err) {
        throw providerError('elevenlabs', err, statusOf(err));
      }
      // 16-bit PCM must hold whole samples; an odd length means a truncated answer.
      if (format !== 'ulaw_8000' && audio.length % 2 !== 0) audio = audio.subarray(0, audio.length - 1);
      return { audio, format, sampleRate };
    },

    async voices(): Promise<VoiceInfo[]> {
      try {
        const { voices } = await client.voices.getAll();
        return voices.map((v) => {
          const language = v.verifiedLanguages?.[0]?.language ?? v.labels?.['language'];
          return { id: v.voiceId, name: v.name ?? v.voiceId, ...(language ? { language } : {}) };
        });
      } catch (err) {
        throw providerError('elevenlabs', err, statusOf(err));
      }
    },
  };
}
