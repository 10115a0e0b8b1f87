import { randomBytes, randomUUID } from 'node:crypto';

/** Twilio resource sid: two-letter prefix and 32 lowercase hex digits. */
export function twilioSid(prefix: 'AC' | 'SM' | 'CA' | 'PN' | 'MG' | 'RQ' | 'RE'): string {
  return prefix + randomBytes(16).toString('hex');
}

/** Resend ids are UUIDs. */
export function resendId(): string {
  return randomUUID();
}

/** LINE message ids are 18-digit decimal strings. */
export function lineMessageId(): string {
  const n = randomBytes(8).readBigUInt64BE() % 900_000_000_000_000_000n;
  return (n + 100_000_000_000_000_000n).toString();
}

/** An opaque url-safe token of `bytes` random bytes (LINE quote tokens, reply tokens...). */
export function opaqueToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID, the format of LINE's webhookEventId. */
export function ulid(now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[random[i]! % 32];
  return time + tail;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text, the alphabet of Svix message ids and Resend API keys. */
export function base62(length: number): string {
  const random = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[random[i]! % 62];
  return out;
}

/** Svix message id as Resend's webhooks carry it. */
export function svixMessageId(): string {
  return `msg_${base62(27)}`;
}
