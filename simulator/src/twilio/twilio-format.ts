import { twilioSid } from '../ids.js';

/** Twilio's API version, in every resource and webhook. */
export const API_VERSION = '2010-04-01';

/** Dates as Twilio's REST API writes them (RFC 2822): `Thu, 24 Aug 2023 05:01:45 +0000`. */
export function rfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

export const E164 = /^\+[1-9]\d{1,14}$/;

/** Headers every Twilio API answer carries. */
export function twilioHeaders(): Record<string, string> {
  return { 'twilio-request-id': twilioSid('RQ') };
}

/** A message address: `+E164` for SMS, `whatsapp:+E164` for WhatsApp. */
export interface MessageAddress {
  channel: 'sms' | 'whatsapp';
  number: string;
}

export function parseRecipient(value: string): MessageAddress | undefined {
  if (value.startsWith('whatsapp:')) {
    const number = value.slice('whatsapp:'.length);
    return E164.test(number) ? { channel: 'whatsapp', number } : undefined;
  }
  return E164.test(value) ? { channel: 'sms', number: value } : undefined;
}

/** Senders may also be short codes or alphanumeric sender ids (SMS only). */
export function parseSender(value: string): MessageAddress | undefined {
  const recipient = parseRecipient(value);
  if (recipient) return recipient;
  if (/^\d{3,8}$/.test(value)) return { channel: 'sms', number: value };
  if (/^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/.test(value)) return { channel: 'sms', number: value };
  return undefined;
}

export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

const COUNTRY_BY_PREFIX: ReadonlyArray<readonly [string, string]> = [
  ['+852', 'HK'], ['+886', 'TW'], ['+1', 'US'], ['+7', 'RU'], ['+31', 'NL'], ['+33', 'FR'], ['+34', 'ES'],
  ['+39', 'IT'], ['+41', 'CH'], ['+44', 'GB'], ['+46', 'SE'], ['+49', 'DE'], ['+52', 'MX'], ['+55', 'BR'],
  ['+61', 'AU'], ['+65', 'SG'], ['+66', 'TH'], ['+81', 'JP'], ['+82', 'KR'], ['+86', 'CN'], ['+91', 'IN'],
];

/** ISO country of an E.164 number, as Twilio's FromCountry/ToCountry fields carry it ('' when unknown). */
export function countryOf(number: string): string {
  let best = '';
  let country = '';
  for (const [prefix, code] of COUNTRY_BY_PREFIX) {
    if (number.startsWith(prefix) && prefix.length > best.length) {
      best = prefix;
      country = code;
    }
  }
  return country;
}

/** `(415) 555-0100` for North American numbers, the number itself otherwise. */
export function formatNumber(number: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : number;
}

/** First value of a form field. */
export function formField(fields: Record<string, string | string[]>, name: string): string | undefined {
  const value = fields[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Every value of a repeatable form field (MediaUrl, StatusCallbackEvent). */
export function formFieldList(fields: Record<string, string | string[]>, name: string): string[] {
  const value = fields[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
