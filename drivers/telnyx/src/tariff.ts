import type { OutboundMessage } from '@switchboard/sdk';
import type { TelnyxTariff } from './settings.js';

/**
 * List prices in USD used when Telnyx has not billed a message yet (the cost comes with
 * `message.finalized`): US long-code SMS at $0.004 per part and MMS at $0.015 per message,
 * before carrier pass-through fees. Override with `settings.tariff`.
 */
export const DEFAULT_TARIFF: Required<TelnyxTariff> = Object.freeze({ sms: 0.004, mms: 0.015 });

/** Estimated cost of one message, rounded to 4 places; null for channels without a tariff. */
export function estimateCost(tariff: Required<TelnyxTariff>, message: OutboundMessage, segments: number): number | null {
  if (message.channel !== 'sms') return null;
  if (message.mediaUrls && message.mediaUrls.length > 0) return round4(tariff.mms);
  return round4(tariff.sms * Math.max(1, Math.ceil(segments)));
}

function round4(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}
