import { validateSignature } from '@line/bot-sdk';
import {
  headerValue,
  malformedPayload,
  signatureError,
  type InboundMessageEvent,
  type WebhookCapability,
  type WebhookRequest,
} from '@switchboard/sdk';

/**
 * Webhook handling for LINE: `X-Line-Signature` check, message events, `{}` acknowledgement. A webhook
 * addressed to one of `botSecrets` (by bot user id) is checked with that bot's secret, any other with
 * `channelSecret`.
 */
export function lineWebhooks(channelSecret: string, botSecrets: ReadonlyMap<string, string> = new Map()): WebhookCapability {
  const secretOf = (rawBody: Buffer): string => (botSecrets.size === 0 ? channelSecret : (botSecrets.get(destinationOf(rawBody) ?? '') ?? channelSecret));
  return {
    verify: (request) => verifySignature(secretOf(request.rawBody), request),
    parse: (request) => parseLineWebhook(request),
    acknowledge: () => ({ contentType: 'application/json', body: '{}' }),
  };
}

/** Checks the base64 HMAC-SHA256 of the raw body with the SDK's `validateSignature`; throws SIGNATURE_INVALID. */
export function verifySignature(channelSecret: string, request: WebhookRequest): void {
  const signature = headerValue(request.headers, 'x-line-signature', 'x-chatapp-signature');
  if (signature === undefined) throw signatureError('line', 'is missing');
  let valid: boolean;
  try {
    valid = validateSignature(request.rawBody, channelSecret, signature);
  } catch (err) {
    throw signatureError('line', 'could not be checked', err);
  }
  if (valid !== true) throw signatureError('line', 'does not match the body');
}

/**
 * The bot a webhook body names, read only to choose which secret checks it (a wrong choice fails the
 * check); undefined when the body is not JSON or names none.
 */
function destinationOf(rawBody: Buffer): string | undefined {
  try {
    const destination = (JSON.parse(rawBody.toString('utf8')) as { destination?: unknown } | null)?.destination;
    return typeof destination === 'string' ? destination : undefined;
  } catch {
    return undefined;
  }
}

interface LineEvent {
  type?: unknown;
  webhookEventId?: unknown;
  timestamp?: unknown;
  source?: { userId?: unknown; groupId?: unknown; roomId?: unknown };
  message?: Record<string, unknown>;
}

/** Message events as inbound messages (keyed by webhookEventId); other events are ignored. */
export function parseLineWebhook(request: WebhookRequest): InboundMessageEvent[] {
  let payload: { destination?: unknown; events?: unknown };
  try {
    payload = JSON.parse(request.rawBody.toString('utf8')) as typeof payload;
  } catch (err) {
    throw malformedPayload('line', 'is not JSON', err);
  }
  if (typeof payload !== 'object' || payload === null || !Array.isArray(payload.events)) {
    throw malformedPayload('line', 'has no events array');
  }
  if (typeof payload.destination !== 'string') throw malformedPayload('line', 'has no destination');
  const destination = payload.destination;
  return (payload.events as LineEvent[]).filter((e) => e?.type === 'message').map((e) => messageEvent(e, destination));
}

function messageEvent(event: LineEvent, destination: string): InboundMessageEvent {
  const id = event.webhookEventId;
  const from = event.source?.userId ?? event.source?.groupId ?? event.source?.roomId;
  const message = event.message;
  if (typeof id !== 'string' || id === '') throw malformedPayload('line', 'has a message event without webhookEventId');
  if (typeof from !== 'string' || from === '') throw malformedPayload('line', 'has a message event without a source');
  if (typeof message !== 'object' || message === null || typeof message['type'] !== 'string') {
    throw malformedPayload('line', 'has a message event without a message');
  }
  const time = typeof event.timestamp === 'number' ? new Date(event.timestamp) : new Date();
  return {
    type: 'message',
    channel: 'line',
    externalId: id,
    from,
    to: destination,
    body: describeMessage(message),
    mediaUrls: [],
    receivedAt: (Number.isNaN(time.getTime()) ? new Date() : time).toISOString(),
  };
}

/** The text of a text message; for other types a short description, since their content sits behind the API. */
export function describeMessage(message: Record<string, unknown>): string {
  const type = String(message['type']);
  const field = (name: string): string => (typeof message[name] === 'string' ? (message[name] as string) : '');
  switch (type) {
    case 'text':
      return field('text');
    case 'sticker': {
      const keywords = Array.isArray(message['keywords']) ? (message['keywords'] as unknown[]).filter((k) => typeof k === 'string') : [];
      return keywords.length > 0 ? `[sticker: ${keywords.slice(0, 3).join(', ')}]` : '[sticker]';
    }
    case 'file':
      return `[file: ${field('fileName') || 'unnamed'}]`;
    case 'location': {
      const place = [field('title'), field('address')].filter(Boolean).join(', ');
      return `[location: ${place || `${String(message['latitude'])}, ${String(message['longitude'])}`}]`;
    }
    default:
      return `[${type}]`;
  }
}
