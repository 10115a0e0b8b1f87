import type { Settings } from '../settings/schema.js';
import type { DriverSpec } from './loader.js';

type SettingKey = keyof Settings & string;

/** A driver that ships with Switchboard and keeps its own settings (TWILIO_*, RESEND_*...). */
interface BuiltInDriver {
  readonly packageName: string;
  /** Settings that must all be set for the driver to load. */
  readonly required: readonly SettingKey[];
  /** The driver's settings property → the Switchboard setting it is read from (empty: left out). */
  readonly settings: Readonly<Record<string, SettingKey>>;
}

/**
 * The built-in drivers and their settings. Any other driver, or a built-in one configured the
 * generic way, is loaded through DRIVERS and DRIVER_<NAME>_<KEY>; nothing else names a package.
 */
export const BUILT_IN_DRIVERS: readonly BuiltInDriver[] = [
  {
    packageName: '@switchboard/driver-twilio',
    required: ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN'],
    settings: { accountSid: 'TWILIO_ACCOUNT_SID', authToken: 'TWILIO_AUTH_TOKEN', baseUrl: 'TWILIO_BASE_URL' },
  },
  {
    packageName: '@switchboard/driver-resend',
    required: ['RESEND_API_KEY', 'RESEND_WEBHOOK_SECRET'],
    settings: { apiKey: 'RESEND_API_KEY', webhookSecret: 'RESEND_WEBHOOK_SECRET', baseUrl: 'RESEND_BASE_URL' },
  },
  {
    packageName: '@switchboard/driver-line',
    required: ['LINE_CHANNEL_ACCESS_TOKEN', 'LINE_CHANNEL_SECRET'],
    settings: { channelAccessToken: 'LINE_CHANNEL_ACCESS_TOKEN', channelSecret: 'LINE_CHANNEL_SECRET', baseUrl: 'LINE_BASE_URL' },
  },
  {
    packageName: '@switchboard/driver-elevenlabs',
    required: ['ELEVENLABS_API_KEY'],
    settings: { apiKey: 'ELEVENLABS_API_KEY', baseUrl: 'ELEVENLABS_BASE_URL' },
  },
  {
    packageName: '@switchboard/driver-deepgram',
    required: ['DEEPGRAM_API_KEY'],
    settings: { apiKey: 'DEEPGRAM_API_KEY', baseUrl: 'DEEPGRAM_BASE_URL' },
  },
];

/** True when some provider is configured: a built-in driver's first credential, or a DRIVERS entry. */
export function hasProviderSettings(settings: Settings): boolean {
  return settings.DRIVERS.trim() !== '' || BUILT_IN_DRIVERS.some((d) => Boolean(settings[d.required[0]!]));
}

/** The built-in drivers whose settings are all set, with their settings in the drivers' own shape. */
export function builtInDriverSpecs(settings: Settings): DriverSpec[] {
  return BUILT_IN_DRIVERS.filter((d) => d.required.every((key) => Boolean(settings[key]))).map((d) => ({
    packageName: d.packageName,
    settings: Object.fromEntries(Object.entries(d.settings).filter(([, key]) => Boolean(settings[key])).map(([property, key]) => [property, settings[key]])),
  }));
}
