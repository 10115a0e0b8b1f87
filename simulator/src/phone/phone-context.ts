import type { SimulatorState } from '../simulator-state.js';
import type { FrameClock } from './frame-clock.js';
import type { PhoneOptions, PhoneScript, VoiceMode } from './phone-types.js';

/** Phone settings with every default applied. */
export interface PhoneSettings {
  answerOutbound: boolean;
  dialMs: number;
  ringMs: number;
  outbound: PhoneScript;
  lateFrameMs: number;
  recordAudioMs: number;
  urlRewrites: ReadonlyArray<readonly [string, string]>;
  onUtterance?: (text: string, info: { callSid: string; mode: VoiceMode; language: string }) => void;
}

/** What every call on the phone shares. */
export interface PhoneContext {
  readonly state: SimulatorState;
  readonly clock: FrameClock;
  readonly settings: PhoneSettings;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`phone.${name} must be a number >= 0, got ${value}`);
  return value;
}

export function phoneSettings(options: PhoneOptions = {}): PhoneSettings {
  const settings: PhoneSettings = {
    answerOutbound: options.answerOutbound ?? true,
    dialMs: nonNegative('dialMs', options.dialMs, 200),
    ringMs: nonNegative('ringMs', options.ringMs, 1000),
    outbound: options.outbound ?? {},
    lateFrameMs: nonNegative('lateFrameMs', options.lateFrameMs, 20),
    recordAudioMs: nonNegative('recordAudioMs', options.recordAudioMs, 30_000),
    // Longest prefix first, so a specific rewrite wins over a general one.
    urlRewrites: Object.entries(options.urlRewrites ?? {}).sort((a, b) => b[0].length - a[0].length),
  };
  if (options.onUtterance) settings.onUtterance = options.onUtterance;
  return settings;
}

/** Where a URL from TwiML is really fetched or connected: the first matching `urlRewrites` prefix replaced. */
export function rewriteUrl(settings: PhoneSettings, url: string): string {
  for (const [from, to] of settings.urlRewrites) if (url.startsWith(from)) return to + url.slice(from.length);
  return url;
}
