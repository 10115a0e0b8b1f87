import { BrokenCircuitError } from 'cockatiel';
import { ErrorCodes, SwitchboardError, hasErrorCode, type Driver, type SpeechSynthesis, type SynthesizedAudio } from '@switchboard/sdk';
import { ProviderCircuits, type ProviderCircuitOptions } from '../drivers/provider-circuits.js';
import type { RuntimeEvents } from '../events.js';
import type { Logger } from '../logger.js';

type SpeechRequest = Parameters<SpeechSynthesis['synthesize']>[0];

/**
 * The TTS providers' circuits: a failure or a time-out of a turn's speech counts towards opening one
 * (text no provider can say does not), and a provider whose circuit is open is not asked until its
 * half-open probe, so a hanging provider stops costing every turn the failover time-out.
 */
export function speechCircuits(options: ProviderCircuitOptions): ProviderCircuits {
  return new ProviderCircuits(options, (err) => !hasErrorCode(err, ErrorCodes.VALIDATION_FAILED));
}

/**
 * A call's speech from the TTS providers in order (`TTS_DRIVER=elevenlabs,openai`): a turn whose speech
 * fails at one provider (an error, or no audio within `timeoutMs`) is spoken by the next rather than
 * left silent. Every turn asks the first again unless its circuit is open: one provider's bad moment
 * costs a turn its own voice, not the rest of the call. A later provider is asked without the agent's
 * voice, which names a voice of the first provider's; it speaks in its own default voice. The last
 * provider is always asked (there is nothing to skip to), without a time-out or circuit.
 */
export function speechWithFailover(drivers: readonly (Driver & { tts: SpeechSynthesis })[], timeoutMs: number, circuits: ProviderCircuits, events: RuntimeEvents, logger?: Logger): SpeechSynthesis {
  return {
    async synthesize(request: SpeechRequest): Promise<SynthesizedAudio> {
      const { voice: _voice, ...ownVoice } = request;
      for (let i = 0; ; i++) {
        const driver = drivers[i]!;
        const asked = i === 0 ? request : ownVoice;
        const next = drivers[i + 1];
        if (!next) return driver.tts.synthesize(asked);
        const from = driver.manifest.provider;
        try {
          return await circuits.for(from).execute(() => withTimeout(driver.tts.synthesize(asked), timeoutMs, from));
        } catch (err) {
          // Text no provider can say fails the same everywhere.
          if (hasErrorCode(err, ErrorCodes.VALIDATION_FAILED)) throw err;
          const to = next.manifest.provider;
          if (err instanceof BrokenCircuitError) logger?.debug({ from, to }, `text-to-speech skips ${from}, its circuit open; the turn is spoken by ${to}`);
          else logger?.warn({ err, from, to }, `text-to-speech failed at ${from}; the turn is spoken by ${to}`);
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
