import {
  ErrorCodes,
  SwitchboardError,
  bareAddress,
  headerValue,
  malformedPayload,
  safeEqual,
  type DeliveryStatusEvent,
  type InboundEvent,
  type InboundMessageEvent,
  type WebhookCapability,
  type WebhookRequest,
} from '@switchboard/sdk';
import type { PostmarkSettings } from './settings.js';

const PROVIDER = 'postmark';

/** Postmark's message ids (sent and received) are UUIDs; nothing else may go into an API path. */
export const POSTMARK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Webhook handling for Postmark: HTTP Basic credentials checked, inbound, delivery, bounce and complaint JSON parsed. */
export function postmarkWebhooks(settings: PostmarkSettings): WebhookCapability {
  return {
    verify: (request) => verifyCredentials(settings, request),
    parse: (request) => parsePostmarkWebhook(request),
    acknowledge: () => ({ contentType: 'application/json', body: '{"ok":true}' }),
    contentTypes: ['application/json'],
  };
}

function refused(reason: string): SwitchboardError {
  return new SwitchboardError(ErrorCodes.SIGNATURE_INVALID, `The postmark webhook credentials ${reason}.`);
}

/**
 * Postmark signs no webhook: it sends the HTTP Basic credentials written into the webhook URL. They are
 * compared with the configured ones in constant time (both parts, always); missing or wrong is
 * SIGNATURE_INVALID. They cover who posted, not the body: TLS keeps the body intact on the way.
 */
export function verifyCredentials(settings: Pick<PostmarkSettings, 'webhookUsername' | 'webhookPassword'>, request: WebhookRequest): void {
  const header = headerValue(request.headers, 'authorization');
  if (!header) throw refused('are missing (put https://user:password@… into the webhook URL at Postmark)');
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!match) throw refused('are not HTTP Basic');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const username = colon === -1 ? decoded : decoded.slice(0, colon);
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  const userOk = safeEqual(username, settings.webhookUsername);
  const passwordOk = safeEqual(password, settings.webhookPassword);
  if (!(userOk && passwordOk)) throw refused('do not match');
}

interface Address {
  readonly Email?: string;
  readonly Name?: string;
}

/** The fields of Postmark's webhooks the driver reads (inbound has no RecordType; the others name theirs). */
interface PostmarkPayload {
  readonly RecordType?: string;
  readonly MessageID?: string;
  /** Delivery webhooks as the SDK's types spell it. */
  readonly MessageId?: string;
  readonly ID?: number | string;
  readonly Type?: string;
  readonly TypeCode?: number;
  readonly Email?: string;
  readonly Recipient?: string;
  readonly DeliveredAt?: string;
  readonly BouncedAt?: string;
  readonly ReceivedAt?: string;
  // Inbound
  readonly From?: string;
  readonly FromFull?: Address;
  readonly To?: string;
  readonly ToFull?: readonly Address[];
  readonly CcFull?: readonly Address[];
  readonly OriginalRecipient?: string;
  readonly Subject?: string;
  readonly TextBody?: string;
  readonly HtmlBody?: string;
  readonly StrippedTextReply?: string;
  readonly Date?: string;
  readonly Headers?: readonly { readonly Name?: string; readonly Value?: string }[];
}

/** An inbound email → one message; Delivery, Bounce and SpamComplaint → a receipt; other record types (Open, Click…) → nothing. */
export function parsePostmarkWebhook(request: WebhookRequest): InboundEvent[] {
  let payload: PostmarkPayload;
  try {
    payload = JSON.parse(request.rawBody.toString('utf8')) as PostmarkPayload;
  } catch (err) {
    throw malformedPayload(PROVIDER, 'is not JSON', err);
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw malformedPayload(PROVIDER, 'is not a JSON object');
  const recordType = payload.RecordType ?? legacyRecordType(payload);
  if (recordType === 'Inbound') return [inboundEmail(payload)];
  if (recordType === 'Delivery' || recordType === 'Bounce' || recordType === 'SpamComplaint') return [receipt(payload, recordType)];
  return [];
}

/**
 * The record type of a webhook that names none: the inbound webhook never does, and the older
 * server-level hooks (DeliveryHookUrl, BounceHookUrl) posted deliveries and bounces without it.
 */
function legacyRecordType(payload: PostmarkPayload): string {
  if (payload.DeliveredAt !== undefined && payload.From === undefined) return 'Delivery';
  if (payload.BouncedAt !== undefined) return payload.Type === 'SpamComplaint' ? 'SpamComplaint' : 'Bounce';
  return 'Inbound';
}

function messageIdOf(payload: PostmarkPayload, what: string): string {
  const id = text(payload.MessageID) ?? text(payload.MessageId);
  if (!id) throw malformedPayload(PROVIDER, `describes ${what} without a MessageID`);
  if (!POSTMARK_ID.test(id)) throw malformedPayload(PROVIDER, `describes ${what} whose MessageID is not a Postmark id (a UUID)`);
  return id.toLowerCase();
}

function inboundEmail(payload: PostmarkPayload): InboundMessageEvent {
  const externalId = messageIdOf(payload, 'an inbound email');
  const from = text(payload.FromFull?.Email) ?? bareAddress(text(payload.From) ?? '');
  if (!from) throw malformedPayload(PROVIDER, 'describes an inbound email without a sender (From, FromFull)');
  // ToFull names the address at our domain; OriginalRecipient is where Postmark received it (the inbound hash address when forwarded).
  const to = text(payload.ToFull?.[0]?.Email) ?? bareAddress(text(payload.To) ?? '') ?? '';
  const messageId = payload.Headers?.find((h) => h?.Name?.toLowerCase() === 'message-id')?.Value;
  return {
    type: 'message',
    channel: 'email',
    externalId,
    from,
    to: to || text(payload.OriginalRecipient) || '',
    subject: payload.Subject ?? '',
    body: payload.TextBody ?? '',
    ...(text(payload.HtmlBody) ? { html: payload.HtmlBody! } : {}),
    mediaUrls: [],
    receivedAt: isoTime(payload.Date),
    ...(messageId ? { emailMessageId: messageId.trim() } : {}),
  };
}

/** Bounce types that say the address is gone for good; soft bounces, auto-responders and the like do not. */
const PERMANENT_BOUNCES: ReadonlySet<string> = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated']);

function receipt(payload: PostmarkPayload, recordType: 'Delivery' | 'Bounce' | 'SpamComplaint'): DeliveryStatusEvent {
  const externalId = messageIdOf(payload, `a ${recordType} record`);
  const recipient = text(payload.Recipient) ?? text(payload.Email) ?? '';
  const at = text(payload.DeliveredAt) ?? text(payload.BouncedAt) ?? '';
  // Postmark gives a record no id of its own that survives JSON (a bounce's ID exceeds 2^53); this one is unique per record.
  const eventId = `${recordType}/${externalId}/${recipient.toLowerCase()}/${at}`;
  if (recordType === 'Delivery') return { type: 'status', channel: 'email', externalId, status: 'delivered', cost: null, eventId };
  if (recordType === 'SpamComplaint') {
    return { type: 'status', channel: 'email', externalId, status: 'delivered', cost: null, errorCode: 'SpamComplaint', eventId, suppression: 'complaint' };
  }
  const bounceType = text(payload.Type) ?? 'Bounce';
  // A transient bounce is a delay Postmark keeps retrying, not an outcome.
  if (bounceType === 'Transient') return { type: 'status', channel: 'email', externalId, status: 'sending', cost: null, eventId };
  const permanent = PERMANENT_BOUNCES.has(bounceType);
  return {
    type: 'status',
    channel: 'email',
    externalId,
    status: 'undelivered',
    cost: null,
    errorCode: bounceType,
    eventId,
    ...(permanent ? { suppression: 'hard-bounce' as const } : {}),
  };
}

function isoTime(value: string | undefined): string {
  const time = value === undefined ? Number.NaN : Date.parse(value);
  return new Date(Number.isNaN(time) ? Date.now() : time).toISOString();
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
