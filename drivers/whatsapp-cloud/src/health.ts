import type { HealthResult } from '@switchboard/sdk';
import type { GraphClient } from './graph-client.js';

interface PhoneNumber {
  readonly display_phone_number?: string;
  readonly verified_name?: string;
  readonly quality_rating?: string;
}

/** Reads the business phone number (GET /{phone-number-id}): proves the token and shows the number's quality rating. */
export async function phoneNumberHealth(client: GraphClient): Promise<HealthResult> {
  try {
    const phone = await client.request<PhoneNumber>('GET', `/${client.settings.phoneNumberId}`, { query: { fields: 'display_phone_number,verified_name,quality_rating' } });
    const quality = phone.quality_rating ?? 'UNKNOWN';
    const ok = quality !== 'RED' && quality !== 'FLAGGED';
    const name = `${phone.display_phone_number ?? client.settings.phoneNumberId}${phone.verified_name ? ` (${phone.verified_name})` : ''}`;
    return { ok, message: ok ? `WhatsApp Cloud API reachable; ${name}, quality ${quality}.` : `WhatsApp number ${name} is rated ${quality}: sends may be limited.` };
  } catch (err) {
    return { ok: false, message: `WhatsApp Cloud API: ${(err as Error).message}` };
  }
}
