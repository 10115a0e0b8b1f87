import { CHANNELS, type Channel } from './channels.js';

/** Speech services a driver can offer to stream-mode calls; they are not channels agents provision. */
export const SPEECH_CAPABILITIES = ['tts', 'stt'] as const;

/** Text-to-speech (`tts`) or streaming speech-to-text (`stt`). */
export type SpeechCapability = (typeof SPEECH_CAPABILITIES)[number];

/** Optional parts of a voice driver's telephony, declared in its manifest (`telephony: ['recording']`). */
export const TELEPHONY_FEATURES = ['recording'] as const;

/** `recording`: the provider records calls itself ({@link Telephony.recording}). */
export type TelephonyFeature = (typeof TELEPHONY_FEATURES)[number];

/** What the runtime chooses a driver for: a channel it carries, or a speech service it offers. */
export const CAPABILITIES = [...CHANNELS, ...SPEECH_CAPABILITIES] as const;

/** A channel or a speech service; one driver is chosen per capability. */
export type Capability = Channel | SpeechCapability;

/** True when `value` names a capability. */
export function isCapability(value: unknown): value is Capability {
  return typeof value === 'string' && (CAPABILITIES as readonly string[]).includes(value);
}

/** Every capability a manifest declares: its channels, then its speech services. */
export function manifestCapabilities(manifest: { readonly channels: readonly Channel[]; readonly speech?: readonly SpeechCapability[] }): Capability[] {
  return [...manifest.channels, ...(manifest.speech ?? [])];
}
