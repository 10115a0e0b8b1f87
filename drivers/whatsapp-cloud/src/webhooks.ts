import { createHmac } from 'node:crypto';
import {
  headerValue,
  malformedPayload,
  safeEqual,
  signatureError,
  type DeliveryStatusEvent,
  type InboundEvent,
  type InboundMessageEvent,
  type WebhookCapability,
  type WebhookHandshakeAnswer,
  type WebhookRequest,
} from '@switchboard/sdk';
import { toE164 } from './addresses.js';
import type { WhatsAppCloudSettings } from './settings.js';
import { normaliseStatus } from './status.js';

const PROVIDER = 'whatsapp-cloud';

/** Webhook handling for the Cloud API: `X-Hub-Signature-256` checked, JSON notifications parsed, an empty 200, the GET handshake. */
export function cloudWebhooks(settings: WhatsAppCloudSettings): WebhookCapability {
  return {
    verify: (request) => verifySignature(settings.appSecret, request),
    parse: (request) => parseCloudWebhook(request),
    acknowledge: () => ({ contentType: 'text/plain', body: '' }),
    handshake: (request) => answerHandshake(settings.verifyToken, request),
    contentTypes: ['application/json'],
  };
}

/**
 * Checks `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body under the app secret,
 * in constant time; throws SIGNATURE_INVALID when it is missing or does not hold.
 */
export function verifySignature(appSecret: string, request: WebhookRequest): void {
  const header = headerValue(request.headers, 'x-hub-signature-256');
  if (!header) throw signatureError(PROVIDER, 'is missing (X-Hub-Signature-256)');
  const expected = `sha256=${createHmac('sha256', appSecret).update(request.rawBody).digest('hex')}`;
  if (!safeEqual(header.trim().toLowerCase(), expected)) throw signatureError(PROVIDER, 'does not hold (X-Hub-Signature-256)');
}

/**
 * Meta's subscription check: a GET with `hub.mode=subscribe`, `hub.verify_token` and `hub.challenge` is
 * answered with the challenge when the token is the configured one, else 403; other requests are not one.
 */
export function answerHandshake(verifyToken: string | undefined, request: WebhookRequest): WebhookHandshakeAnswer | undefined {
  if (request.method !== 'GET') return undefined;
  const query = new URL(request.url, 'http://localhost').searchParams;
  const mode = query.get('hub.mode');
  const challenge = query.get('hub.challenge');
  if (mode === null && challenge === null) return undefined;
  const token = query.get('hub.verify_token') ?? '';
  if (mode !== 'subscribe' || challenge === null || !verifyToken || !safeEqual(token, verifyToken)) {
    return { status: 403, contentType: 'text/plain', body: 'Forbidden' };
  }
  return { status: 200, contentType: 'text/plain', body: challenge };
}

interface CloudMessage {
  readonly from?: string;
  readonly id?: string;
  readonly timestamp?: string;
  readonly type?: string;
  readonly text?: { readonly body?: string };
  readonly button?: { readonly text?: string };
  readonly interactive?: { readonly button_reply?: { readonly title?: string }; readonly list_reply?: { readonly title?: string } };
  readonly image?: { readonly caption?: string };
  readonly video?: { readonly caption?: string };
  readonly document?: { readonly caption?: string; readonly filename?: string };
  readonly location?: { readonly latitude?: number; readonly longitude?: number; readonly name?: string };
}

interface CloudStatus {
  readonly id?: string;
  readonly status?: string;
  readonly timestamp?: string;
  readonly recipient_id?: string;
  readonly errors?: readonly { readonly code?: number | string }[];
}

interface Notification {
  readonly object?: string;
  readonly entry?: readonly {
    readonly changes?: readonly {
      readonly field?: string;
      readonly value?: {
        readonly metadata?: { readonly display_phone_number?: string; readonly phone_number_id?: string };
        readonly messages?: readonly CloudMessage[];
        readonly statuses?: readonly CloudStatus[];
      };
    }[];
  }[];
}

/** Every message and status of a notification (Meta batches entries and changes); other fields yield nothing. */
export function parseCloudWebhook(request: WebhookRequest): InboundEvent[] {
  let notification: Notification;
  try {
    notification = JSON.parse(request.rawBody.toString('utf8')) as Notification;
  } catch (err) {
    throw malformedPayload(PROVIDER, 'is not JSON', err);
  }
  if (notification?.object !== 'whatsapp_business_account' || !Array.isArray(notification.entry)) {
    throw malformedPayload(PROVIDER, 'is not a WhatsApp Business Account notification (object, entry)');
  }
  const events: InboundEvent[] = [];
  for (const entry of notification.entry) {
    for (const change of entry?.changes ?? []) {
      if (change?.field !== 'messages' || !change.value) continue;
      const business = change.value.metadata?.display_phone_number;
      for (const message of change.value.messages ?? []) events.push(inboundMessage(message, business));
      for (const status of change.value.statuses ?? []) {
        const event = deliveryStatus(status);
        if (event) events.push(event);
      }
    }
  }
  return events;
}

function inboundMessage(message: CloudMessage, business: string | undefined): InboundMessageEvent {
  if (typeof message?.id !== 'string' || message.id === '') throw malformedPayload(PROVIDER, 'names a message without an id (messages[].id)');
  if (typeof message.from !== 'string' || message.from === '' || typeof business !== 'string' || business === '') {
    throw malformedPayload(PROVIDER, 'names no sender or business number (messages[].from, metadata.display_phone_number)');
  }
  return {
    type: 'message',
    channel: 'whatsapp',
    externalId: message.id,
    from: toE164(message.from),
    to: toE164(business),
    body: textOf(message),
    // Media come as ids readable only with the access token (GET /{media-id}); they are not passed on as URLs.
    mediaUrls: [],
    receivedAt: isoOf(message.timestamp),
  };
}

/** The text a person sent: a text's body, a button's label, a caption, a location. */
function textOf(m: CloudMessage): string {
  switch (m.type) {
    case 'text':
      return m.text?.body ?? '';
    case 'button':
      return m.button?.text ?? '';
    case 'interactive':
      return m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? '';
    case 'image':
    case 'video':
      return m[m.type]?.caption ?? '';
    case 'document':
      return m.document?.caption ?? m.document?.filename ?? '';
    case 'location':
      return `${m.location?.name ? `${m.location.name} ` : ''}(${m.location?.latitude ?? '?'}, ${m.location?.longitude ?? '?'})`;
    default:
      return m.text?.body ?? '';
  }
}

function deliveryStatus(status: CloudStatus): DeliveryStatusEvent | undefined {
  if (typeof status?.id !== 'string' || status.id === '') throw malformedPayload(PROVIDER, 'names a status without a message id (statuses[].id)');
  const normalised = normaliseStatus(status.status);
  if (normalised === undefined) return undefined;
  const code = status.errors?.[0]?.code;
  return {
    type: 'status',
    channel: 'whatsapp',
    externalId: status.id,
    status: normalised,
    // Meta reports the pricing category, not an amount.
    cost: null,
    ...(normalised === 'failed' && code !== undefined && code !== null ? { errorCode: String(code) } : {}),
    // Meta gives a status no id of its own; each message reaches each status once.
    eventId: `${status.id}/${normalised}`,
  };
}

/** A Cloud API timestamp (Unix seconds, as a string) in ISO 8601; now when absent. */
function isoOf(seconds: string | undefined): string {
  const n = Number(seconds);
  return seconds !== undefined && Number.isFinite(n) && n > 0 ? new Date(n * 1000).toISOString() : new Date().toISOString();
}
