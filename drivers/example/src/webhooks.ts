import {
  malformedPayload,
  type InboundEvent,
  type WebhookCapability,
} from '@switchboard/sdk';
import { verifyWebhook } from './signature.js';
import { toMessageStatus } from './status.js';

/**
 * Webhook bodies the provider posts (JSON):
 *   {"type":"message.received","id":"evt_…","message":{"id","from","to","body","media_urls"?,"received_at"}}
 *   {"type":"message.status","id":"evt_…","message_id","status","price"?,"error_code"?}
 */
export function exampleWebhooks(webhookSecret: string): WebhookCapability {
  return {
    verify: (request) => verifyWebhook(webhookSecret, request),
    parse: (request) => parse(request.rawBody),
    acknowledge: () => ({ contentType: 'application/json', body: '{"received":true}' }),
    // The provider posts JSON on the sms channel, where the gateway otherwise expects Twilio's form bodies.
    contentTypes: ['application/json'],
  };
}

function parse(rawBody: Buffer): InboundEvent[] {
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>;
  } catch (err) {
    throw malformedPayload('example', 'is not JSON', err);
  }
  if (typeof payload !== 'object' || payload === null) throw malformedPayload('example', 'is not an object');

  if (payload['type'] === 'message.received') {
    const message = payload['message'] as Record<string, unknown> | undefined;
    const id = message?.['id'];
    const from = message?.['from'];
    const to = message?.['to'];
    const body = message?.['body'];
    if (typeof id !== 'string' || typeof from !== 'string' || typeof to !== 'string' || typeof body !== 'string') {
      throw malformedPayload('example', 'has a message without id, from, to or body');
    }
    const media = Array.isArray(message!['media_urls']) ? (message!['media_urls'] as unknown[]) : [];
    const receivedAt = Date.parse(String(message!['received_at']));
    return [
      {
        type: 'message',
        channel: 'sms',
        externalId: id,
        from,
        to,
        body,
        mediaUrls: media.filter((u): u is string => typeof u === 'string'),
        receivedAt: new Date(Number.isNaN(receivedAt) ? Date.now() : receivedAt).toISOString(),
      },
    ];
  }

  if (payload['type'] === 'message.status') {
    const messageId = payload['message_id'];
    const status = toMessageStatus(payload['status']);
    if (typeof messageId !== 'string' || status === undefined) throw malformedPayload('example', 'has a status without message_id or a known status');
    const price = payload['price'] == null ? Number.NaN : Math.abs(Number(payload['price']));
    const errorCode = payload['error_code'];
    return [
      {
        type: 'status',
        channel: 'sms',
        externalId: messageId,
        status,
        cost: Number.isFinite(price) ? price : null,
        ...(typeof payload['id'] === 'string' ? { eventId: payload['id'] } : {}),
        ...(typeof errorCode === 'string' ? { errorCode } : {}),
      },
    ];
  }

  // Unknown event types are acknowledged and ignored, so the provider does not retry them forever.
  if (typeof payload['type'] === 'string') return [];
  throw malformedPayload('example', 'has no type');
}
