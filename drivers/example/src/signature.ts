import { hmacSha256Base64, headerValue, safeEqual, signatureError, type WebhookRequest } from '@switchboard/sdk';

/** The provider's signature header: `t=<unix seconds>,v1=<base64 HMAC-SHA256 of "<t>.<raw body>">`. */
export const SIGNATURE_HEADER = 'x-example-signature';

/** How far a signing time may be from now, in seconds; older deliveries are replays. */
export const TOLERANCE_SECONDS = 300;

/** The header value the provider sends for `rawBody` signed at `timestamp` (unix seconds). */
export function signWebhook(secret: string, rawBody: Buffer | string, timestamp = Math.floor(Date.now() / 1000)): string {
  const signed = Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(rawBody)]);
  return `t=${timestamp},v1=${hmacSha256Base64(secret, signed)}`;
}

/** Checks the signature on the raw bytes and the timestamp's age; throws SIGNATURE_INVALID otherwise. */
export function verifyWebhook(secret: string, request: WebhookRequest, now = Date.now()): void {
  const header = headerValue(request.headers, SIGNATURE_HEADER);
  if (header === undefined) throw signatureError('example', 'is missing');
  const parts = new Map(
    header.split(',').map((part) => {
      const eq = part.indexOf('=');
      return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()] as const;
    }),
  );
  const timestamp = Number(parts.get('t'));
  const signature = parts.get('v1');
  if (!Number.isInteger(timestamp) || !signature) throw signatureError('example', 'is not in the t=…,v1=… form');
  if (Math.abs(now / 1000 - timestamp) > TOLERANCE_SECONDS) throw signatureError('example', 'has expired');
  const expected = hmacSha256Base64(secret, Buffer.concat([Buffer.from(`${timestamp}.`), request.rawBody]));
  if (!safeEqual(expected, signature)) throw signatureError('example', 'does not match the body');
}
