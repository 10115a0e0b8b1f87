import { randomBytes } from 'node:crypto';
import { base62, opaqueToken, twilioSid } from './ids.js';
import type { SimulatorCredentials } from './types.js';

/** Random credentials in each provider's own format, merged over any given ones. */
export function resolveCredentials(given: Partial<SimulatorCredentials> = {}): SimulatorCredentials {
  return {
    twilio: {
      accountSid: twilioSid('AC'),
      authToken: randomBytes(16).toString('hex'),
      ...given.twilio,
    },
    resend: {
      apiKey: `re_${base62(8)}_${base62(24)}`,
      webhookSecret: `whsec_${randomBytes(24).toString('base64')}`,
      ...given.resend,
    },
    line: {
      channelAccessToken: opaqueToken(129),
      channelSecret: randomBytes(16).toString('hex'),
      botUserId: `U${randomBytes(16).toString('hex')}`,
      ...given.line,
    },
    elevenlabs: {
      apiKey: `sk_${randomBytes(24).toString('hex')}`,
      ...given.elevenlabs,
    },
    deepgram: {
      apiKey: randomBytes(20).toString('hex'),
      ...given.deepgram,
    },
  };
}
