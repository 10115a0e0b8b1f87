import { Type } from '@sinclair/typebox';
import { csv, secret } from './setting-kinds.js';

/** `SMS_DRIVER`, `TTS_DRIVER`...: which driver serves a capability when several loaded drivers offer it. */
function driverChoices() {
  const choice = (capability: string, name: string, several: string) =>
    Type.String({
      default: '',
      pattern: '^$|^\\S+$',
      description: `The driver that serves ${capability} when several loaded drivers offer it: a package name, or a driver's settings name (\`${name}\`). ${several} Unset with two candidates, the start stops with DRIVER_CONFLICT.`,
    });
  const messages = (order: string) =>
    `Several may be named in order of preference (\`${order}\`): sends go to the first and fail over to the next when one provably did not take a message (docs/configuration.md, "Routing and failover").`;
  const one = 'One driver only: a list is refused at start (DRIVER_CONFLICT).';
  return {
    SMS_DRIVER: choice('sms', 'twilio', messages('twilio,telnyx')),
    WHATSAPP_DRIVER: choice('whatsapp', 'twilio', messages('twilio,whatsapp-cloud')),
    EMAIL_DRIVER: choice('email', 'resend', messages('resend,postmark')),
    LINE_DRIVER: choice('the line (chat) channel', 'line', messages('line,<another driver>')),
    VOICE_DRIVER: choice('voice calls', 'twilio', one),
    TTS_DRIVER: choice(
      'text-to-speech (tts)',
      'elevenlabs',
      'Several may be named in order of preference (`elevenlabs,openai`): a call turn whose speech fails at one, or takes longer than TTS_FAILOVER_TIMEOUT_MS, is spoken by the next.',
    ),
    STT_DRIVER: choice('speech-to-text (stt)', 'deepgram', one),
  };
}

/** Settings of channels and their providers: number pools, provider credentials, further drivers and which driver serves each capability. */
export const PROVIDER_SETTINGS = {
  POOL_PHONE_NUMBERS: csv('Comma-separated E.164 numbers for sms and voice. `<provider>:+1…` marks a number held at another provider than the channel\'s own (`telnyx:+15555550200`): provisioning gives each agent one of those too, the sender for its sends that fail over there.'),
  POOL_WHATSAPP_SENDERS: csv('Comma-separated E.164 WhatsApp sender numbers.'),
  POOL_LINE_CHANNELS: csv('Comma-separated LINE bot user ids.'),
  EMAIL_DOMAIN: Type.String({ default: '', pattern: '^$|^[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$', description: 'Domain agent email addresses are made under.' }),
  TWILIO_ACCOUNT_SID: Type.String({ default: '', pattern: '^$|^AC[0-9a-fA-F]{32}$', description: 'Twilio account SID.' }),
  TWILIO_AUTH_TOKEN: secret('Twilio auth token.'),
  TWILIO_BASE_URL: Type.String({ default: '', pattern: '^$|^https?://\\S+$', description: 'Override of the Twilio API origin.' }),
  RESEND_API_KEY: secret('Resend API key.'),
  RESEND_WEBHOOK_SECRET: secret('Resend (Svix) webhook signing secret, whsec_…'),
  RESEND_BASE_URL: Type.String({ default: '', pattern: '^$|^https?://\\S+$', description: 'Override of the Resend API base URL.' }),
  LINE_CHANNEL_ACCESS_TOKEN: secret('LINE channel access token.'),
  LINE_CHANNEL_SECRET: secret('LINE channel secret.'),
  LINE_BASE_URL: Type.String({ default: '', pattern: '^$|^https?://\\S+$', description: 'Override of the LINE API base URL.' }),
  ELEVENLABS_API_KEY: secret('ElevenLabs API key.'),
  DEEPGRAM_API_KEY: secret('Deepgram API key (speech-to-text for stream-mode calls).'),
  DEEPGRAM_BASE_URL: Type.String({ default: '', pattern: '^$|^(https?|wss?)://\\S+$', description: 'Override of the Deepgram API origin.' }),
  ELEVENLABS_BASE_URL: Type.String({ default: '', pattern: '^$|^https?://\\S+$', description: 'Override of the ElevenLabs API base URL.' }),
  DRIVERS: Type.String({
    default: '',
    pattern: '^[\\s,]*$|^[\\s,]*(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*([\\s,]+(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*)*[\\s,]*$',
    description:
      'Further driver packages to load, comma-separated npm package names (installed next to Switchboard or in the working directory), e.g. `@acme/switchboard-driver-fax`. Each reads its settings from `DRIVER_<NAME>_<KEY>`; setting DRIVERS turns demo mode off (auto).',
  }),
  ...driverChoices(),
};
