import { ErrorCodes, SwitchboardError, hasErrorCode, type Driver, type SpeechSynthesis, type SynthesizedAudio } from '@switchboard/sdk';
import type { RuntimeEvents } from '../events.js';
import type { Logger } from '../logger.js';

type SpeechRequest = Parameters<SpeechSynthesis['synthesize']>[0];

/**
 * A call's speech from the TTS providers in order (`TTS_DRIVER=elevenlabs,openai`): a turn whose speech
 * fails at one provider (an error, or no audio within `timeoutMs`) is spoken by the next rather than
 * left silent. Every turn asks the first again: one provider's bad moment costs a turn its own voice,
 * not the rest of the call. A later provider is asked without the agent's voice, which names a voice
 * of the first provider's; it speaks in its own default voice.
 */
export function speechWithFailover(drivers: readonly (Driver & { tts: SpeechSynthesis })[], timeoutMs: number, events: RuntimeEvents, logger?: Logger): SpeechSynthesis {
  return {
    async synthesize(request: SpeechRequest): Promise<SynthesizedAudio> {
      const { voice: _voice, ...ownVoice } = request;
      for (let i = 0; ; i++) {
        const driver = drivers[i]!;
        const asked = i === 0 ? request : ownVoice;
        const next = drivers[i + 1];
        if (!next) return driver.tts.synthesize(asked);
        try {
          return await withTimeout(driver.tts.synthesize(asked), timeoutMs, driver.manifest.provider);
        } catch (err) {
          // Text no provider can say fails the same everywhere.
          if (hasErrorCode(err, ErrorCodes.VALIDATION_FAILED)) throw err;
          const from = driver.manifest.provider;
          const to = next.manifest.provider;
          logger?.warn({ err, from, to }, `text-to-speech failed at ${from}; the turn is spoken by ${to}`);
          events.emit('providerFailover', { channel: 'tts', from, to });
        }
      }
    },
    voices: () => drivers[0]!.tts.voices(),
  };
}

/** The speech, or a retryable PROVIDER_ERROR once `ms` have passed (the late answer is dropped). */
function withTimeout<T>(work: Promise<T>, ms: number, provider: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SwitchboardError(ErrorCodes.PROVIDER_ERROR, `${provider} gave no speech within ${ms} ms.`, { retryable: true })), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timedOut]).finally(() => clearTimeout(timer));
}
