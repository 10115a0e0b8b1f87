import type { OutboundMessage } from '@switchboard/sdk';
import type { TwilioTariff } from './settings.js';

/**
 * List prices in USD used when Twilio has not priced a message yet (it reports the price later):
 * US outbound SMS at $0.0083 per segment, and Twilio's $0.005 fee per WhatsApp message
 * (Meta's conversation charge varies by country and is not included). Override with `settings.tariff`.
 */
export const DEFAULT_TARIFF: Required<TwilioTariff> = Object.freeze({ sms: 0.0083, whatsapp: 0.005 });

/** Estimated cost of one message, rounded to 4 places; null for channels without a tariff. */
export function estimateCost(tariff: Required<TwilioTariff>, message: OutboundMessage, segments: number): number | null {
  const parts = Math.max(1, Math.ceil(segments));
  switch (message.channel) {
    case 'sms':
      return round4(tariff.sms * parts);
    case 'whatsapp':
      return round4(tariff.whatsapp);
    default:
      return null;
  }
}

function round4(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}
