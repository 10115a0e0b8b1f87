import {
  malformedPayload,
  signatureError,
  type InboundEvent,
  type WebhookCapability,
  type WebhookRequest,
} from '@switchboard/sdk';
import type Telnyx from 'telnyx';
import { costOf, errorCodeOf, recipientStatus, type MessagePayload } from './message-payload.js';
import { streamUrlHolds } from './voice-stream.js';

/** Webhook handling for Telnyx messaging: Ed25519 signature check with the SDK's verifier, JSON events, an empty 200. */
export function messagingWebhooks(client: Telnyx, apiKey: string): WebhookCapability {
  return {
    verify: (request) => (isStreamUpgrade(request) ? verifyStreamUpgrade(apiKey, request) : verifySignature(client, request)),
    parse: (request) => parseMessagingWebhook(request),
    acknowledge: () => ({ contentType: 'text/plain', body: '' }),
    contentTypes: ['application/json'],
  };
}

/**
 * Checks `telnyx-signature-ed25519` over `telnyx-timestamp|body` against the account's public key, and
 * the timestamp within Telnyx's five minutes, with the SDK's own `webhooks.unwrap`; throws SIGNATURE_INVALID.
 */
export async function verifySignature(client: Telnyx, request: WebhookRequest): Promise<void> {
  try {
    await client.webhooks.unwrap(request.rawBody.toString('utf8'), { headers: { ...request.headers } });
  } catch (err) {
    // unwrap parses the body once the signature holds: a signed body that is not JSON is parse's to refuse.
    if (err instanceof SyntaxError) return;
    throw signatureError('telnyx', (err as Error).name === 'TelnyxWebhookVerificationError' ? `does not hold: ${(err as Error).message}` : 'could not be checked', err);
  }
}

/** The media stream's WebSocket upgrade: a GET on the voice channel, with no body to sign. */
function isStreamUpgrade(request: WebhookRequest): boolean {
  return request.channel === 'voice' && request.method.toUpperCase() === 'GET';
}

/** Telnyx signs no WebSocket upgrade: the stream URL it was given carries the driver's token (see voice-stream.ts). */
function verifyStreamUpgrade(apiKey: string, request: WebhookRequest): void {
  if (!streamUrlHolds(apiKey, request.url)) throw signatureError('telnyx', 'does not hold: the stream URL carries no valid token');
}

interface EventEnvelope {
  readonly data?: { readonly id?: string; readonly event_type?: string; readonly occurred_at?: string; readonly payload?: MessagePayload };
}

/** `message.received` as an inbound message; `message.sent`/`message.finalized` as a receipt; other events yield nothing. */
export function parseMessagingWebhook(request: WebhookRequest): InboundEvent[] {
  let envelope: EventEnvelope;
  try {
    envelope = JSON.parse(request.rawBody.toString('utf8')) as EventEnvelope;
  } catch (err) {
    throw malformedPayload('telnyx', 'is not JSON', err);
  }
  const data = envelope?.data;
  const payload = data?.payload;
  if (typeof data?.event_type !== 'string' || typeof payload !== 'object' || payload === null) throw malformedPayload('telnyx', 'is not a Telnyx event (data.event_type, data.payload)');
  if (typeof payload.id !== 'string' || payload.id === '') throw malformedPayload('telnyx', 'names no message id (data.payload.id)');
  switch (data.event_type) {
    case 'message.received':
      return [inboundMessage(payload, data.occurred_at)];
    case 'message.sent':
    case 'message.finalized': {
      const status = recipientStatus(payload);
      if (status === undefined) return [];
      const errorCode = errorCodeOf(payload);
      return [
        {
          type: 'status',
          channel: 'sms',
          externalId: payload.id,
          status,
          cost: costOf(payload),
          ...(errorCode !== undefined && (status === 'failed' || status === 'undelivered') ? { errorCode } : {}),
          ...(typeof data.id === 'string' && data.id !== '' ? { eventId: data.id } : {}),
        },
      ];
    }
    default:
      return [];
  }
}

function inboundMessage(payload: MessagePayload, occurredAt: string | undefined): InboundEvent {
  const from = typeof payload.from === 'string' ? payload.from : payload.from?.phone_number;
  const to = typeof payload.to === 'string' ? payload.to : payload.to?.[0]?.phone_number;
  if (typeof from !== 'string' || from === '' || typeof to !== 'string' || to === '') throw malformedPayload('telnyx', 'names no sender or recipient (data.payload.from, to)');
  return {
    type: 'message',
    channel: 'sms',
    externalId: payload.id!,
    from,
    to,
    body: typeof payload.text === 'string' ? payload.text : '',
    mediaUrls: (payload.media ?? []).map((m) => m.url).filter((url): url is string => typeof url === 'string' && url.length > 0),
    receivedAt: payload.received_at ?? occurredAt ?? new Date().toISOString(),
  };
}
