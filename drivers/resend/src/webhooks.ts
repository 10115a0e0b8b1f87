import {
  bareAddress,
  headerValue,
  malformedPayload,
  signatureError,
  type DeliveryStatusEvent,
  type InboundEvent,
  type InboundMessageEvent,
  type MessageStatus,
  type WebhookCapability,
  type WebhookRequest,
} from '@switchboard/sdk';
import type { Resend } from 'resend';
import { Webhook } from 'svix';
import { REQUEST_TIMEOUT_MS, fetchFailure } from './failure.js';

/** Resend delivery events and the status each means; other event types are ignored. */
export const STATUS_OF_EVENT: Readonly<Record<string, MessageStatus>> = {
  'email.scheduled': 'queued',
  'email.sent': 'sent',
  'email.delivery_delayed': 'sending',
  'email.delivered': 'delivered',
  'email.complained': 'delivered',
  'email.opened': 'read',
  'email.clicked': 'read',
  'email.bounced': 'undelivered',
  'email.failed': 'failed',
  'email.suppressed': 'failed',
};

/** Resend's ids (emails, domains, keys) are UUIDs; nothing else may go into an API path. */
export const RESEND_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ResendEvent {
  type: string;
  created_at?: string;
  data: Record<string, unknown>;
}

/** Webhook handling for Resend: Svix signatures, received emails fetched by id, delivery events. */
export function emailWebhooks(resend: Resend, webhookSecret: string): WebhookCapability {
  const svix = new Webhook(webhookSecret);
  return {
    verify: (request) => verifySignature(svix, request),
    parse: (request) => parseEmailWebhook(resend, request),
    acknowledge: () => ({ contentType: 'application/json', body: '{"ok":true}' }),
  };
}

/** Checks the Svix signature (and its ±5 min timestamp) on the raw bytes; throws SIGNATURE_INVALID. */
export function verifySignature(svix: Webhook, request: WebhookRequest): void {
  if (headerValue(request.headers, 'svix-signature', 'webhook-signature') === undefined) {
    throw signatureError('resend', 'is missing');
  }
  try {
    svix.verify(request.rawBody, { ...request.headers });
  } catch (err) {
    // svix parses the body as JSON only after the signature matched; a SyntaxError therefore means
    // "signed, but not JSON", which parse() reports as MALFORMED_PAYLOAD.
    if (err instanceof SyntaxError) return;
    throw signatureError('resend', `does not hold (${err instanceof Error ? err.message : 'rejected'})`, err);
  }
}

/** `email.received` → the stored email as an inbound message; delivery events → status receipts. */
export async function parseEmailWebhook(resend: Resend, request: WebhookRequest): Promise<InboundEvent[]> {
  const event = readEvent(request.rawBody);
  if (event.type === 'email.received') return [await receivedEmail(resend, event)];
  const status = STATUS_OF_EVENT[event.type];
  if (status === undefined) return [];
  const emailId = emailIdOf(event);
  const errorCode = errorCodeOf(event);
  const receipt: DeliveryStatusEvent = {
    type: 'status',
    channel: 'email',
    externalId: emailId,
    status,
    cost: null,
    ...(errorCode ? { errorCode } : {}),
    ...suppressionOf(event),
    ...eventIdOf(request),
  };
  return [receipt];
}

async function receivedEmail(resend: Resend, event: ResendEvent): Promise<InboundMessageEvent> {
  const emailId = emailIdOf(event);
  // The event carries the envelope only; the body is fetched by id (the webhook is acknowledged after this).
  const { data: email, error } = await resend.emails.receiving.get(emailId, {}, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (error) throw fetchFailure(error);
  // received_for names the inbound address(es) at our domain, which is right even when the agent was cc'd.
  const recipients = [...(email.received_for ?? []), ...(email.to ?? []), ...stringList(event.data['to'])];
  const message: InboundMessageEvent = {
    type: 'message',
    channel: 'email',
    externalId: emailId,
    from: bareAddress(email.from || text(event.data['from']) || ''),
    to: bareAddress(recipients[0] ?? ''),
    subject: email.subject ?? text(event.data['subject']) ?? '',
    body: email.text ?? '',
    ...(email.html ? { html: email.html } : {}),
    mediaUrls: [],
    receivedAt: isoTime(email.created_at ?? event.created_at),
    ...(email.message_id ? { emailMessageId: email.message_id } : {}),
  };
  if (!message.from) throw malformedPayload('resend', 'describes an email without a sender');
  return message;
}

/** The event's `data.email_id`, checked to be a Resend id before it is used anywhere (it goes into an API path). */
function emailIdOf(event: ResendEvent): string {
  const emailId = text(event.data['email_id']);
  if (!emailId) throw malformedPayload('resend', `has a ${event.type} event without data.email_id`);
  if (!RESEND_ID.test(emailId)) throw malformedPayload('resend', `has a ${event.type} event whose data.email_id is not a Resend id (a UUID)`);
  return emailId;
}

function readEvent(rawBody: Buffer): ResendEvent {
  let value: unknown;
  try {
    value = JSON.parse(rawBody.toString('utf8'));
  } catch (err) {
    throw malformedPayload('resend', 'is not JSON', err);
  }
  const candidate = value as Partial<ResendEvent> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.type !== 'string') {
    throw malformedPayload('resend', 'has no event type');
  }
  if (typeof candidate.data !== 'object' || candidate.data === null) throw malformedPayload('resend', 'has no data object');
  return candidate as ResendEvent;
}

/** A permanent bounce (Resend's `bounce.type` "Permanent") or a complaint: the address is not to be written again. */
function suppressionOf(event: ResendEvent): Pick<DeliveryStatusEvent, 'suppression'> {
  const bounce = event.data['bounce'] as { type?: unknown } | undefined;
  if (event.type === 'email.bounced' && text(bounce?.type) === 'Permanent') return { suppression: 'hard-bounce' };
  if (event.type === 'email.complained') return { suppression: 'complaint' };
  return {};
}

function errorCodeOf(event: ResendEvent): string | undefined {
  const bounce = event.data['bounce'] as { type?: unknown; subType?: unknown } | undefined;
  if (event.type === 'email.bounced') return [text(bounce?.type), text(bounce?.subType)].filter(Boolean).join(':') || 'bounced';
  if (event.type === 'email.complained') return 'complained';
  if (event.type === 'email.failed') return 'failed';
  if (event.type === 'email.suppressed') return 'suppressed';
  return undefined;
}

function eventIdOf(request: WebhookRequest): { eventId?: string } {
  const id = headerValue(request.headers, 'svix-id', 'webhook-id');
  return id === undefined ? {} : { eventId: id };
}

function isoTime(value: string | undefined): string {
  const time = value === undefined ? Number.NaN : Date.parse(value);
  return new Date(Number.isNaN(time) ? Date.now() : time).toISOString();
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
