import { randomUUID } from 'node:crypto';
import twilio from 'twilio';
import { deliverWebhook, type WebhookAnswer } from '../webhook-delivery.js';
import type { WebhookTampering } from '../inbound-types.js';

/**
 * POSTs Twilio form parameters to `url`, signed with X-Twilio-Signature as Twilio signs them
 * (twilio's own getExpectedTwilioSignature over the exact URL and the parameters).
 * `tamper` changes `tamperField` after signing; `omitSignature` sends no signature.
 */
export function postTwilioWebhook(
  authToken: string,
  url: string,
  params: Record<string, string>,
  tampering: WebhookTampering = {},
  tamperField = 'Body',
): Promise<WebhookAnswer> {
  const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
  const sent = tampering.tamper ? { ...params, [tamperField]: `${params[tamperField] ?? ''} [tampered]` } : params;
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    'user-agent': 'TwilioProxy/1.1',
    'i-twilio-idempotency-token': randomUUID(),
  };
  if (!tampering.omitSignature) headers['x-twilio-signature'] = signature;
  return deliverWebhook(url, headers, new URLSearchParams(sent).toString());
}
