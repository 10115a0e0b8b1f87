import { createHash } from 'node:crypto';
import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import { resendId } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import { resendError } from './resend-errors.js';
import type { ReceivedEmail, SentEmail } from './resend-mailbox.js';

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
const NAMED_ADDRESS = /^[^<>]*<\s*([^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)\s*>$/;
const MAX_RECIPIENTS = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `a@b.c` or `Name <a@b.c>`, the two forms Resend accepts. */
export function isEmailAddress(value: unknown): value is string {
  return typeof value === 'string' && (ADDRESS.test(value.trim()) || NAMED_ADDRESS.test(value.trim()));
}

/** The send's custom headers: the string-valued entries of an object (anything else is none). */
function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function addressList(value: unknown): string[] | null | 'invalid' {
  if (value === undefined || value === null) return null;
  const list = Array.isArray(value) ? value : [value];
  return list.every(isEmailAddress) ? (list as string[]) : 'invalid';
}

const FORMAT_HINT = 'The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.';

/** POST /emails: validates like Resend, honours Idempotency-Key, stores and records the email. */
export function sendEmail(state: SimulatorState, req: SimRequest): SimResponse {
  const key = req.headers['idempotency-key'];
  const idempotencyKey = Array.isArray(key) ? key[0] : key;
  if (idempotencyKey !== undefined && (idempotencyKey.length < 1 || idempotencyKey.length > 256)) {
    return resendError(400, 'invalid_idempotency_key', 'The key must be between 1-256 chars.');
  }
  const digest = idempotencyKey === undefined ? '' : createHash('sha256').update(req.rawBody).digest('hex');
  if (idempotencyKey !== undefined) {
    const previous = state.resend.idempotency.get(idempotencyKey);
    if (previous) {
      if (previous.bodyDigest !== digest) {
        return resendError(409, 'invalid_idempotent_request', 'Same idempotency key used with a different request payload. Change your idempotency key or payload.');
      }
      return previous.response;
    }
  }
  const response = createEmail(state, req);
  if (idempotencyKey !== undefined && response.status < 300) state.resend.idempotency.set(idempotencyKey, { bodyDigest: digest, response });
  return response;
}

function createEmail(state: SimulatorState, req: SimRequest): SimResponse {
  if (req.bodyError !== undefined || typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    return resendError(422, 'validation_error', 'Invalid request body: expected a JSON object.');
  }
  const b = req.body as Record<string, unknown>;
  if (b['from'] === undefined || b['from'] === '') return resendError(422, 'missing_required_field', 'Missing `from` field.');
  if (!isEmailAddress(b['from'])) return resendError(422, 'validation_error', `Invalid \`from\` field. ${FORMAT_HINT}`);
  const to = addressList(b['to']);
  if (to === null || (Array.isArray(to) && to.length === 0)) return resendError(422, 'missing_required_field', 'Missing `to` field.');
  if (to === 'invalid') return resendError(422, 'validation_error', `Invalid \`to\` field. ${FORMAT_HINT}`);
  if (to.length > MAX_RECIPIENTS) return resendError(422, 'validation_error', `Too many recipients in the \`to\` field. The maximum is ${MAX_RECIPIENTS}.`);
  const cc = addressList(b['cc']);
  const bcc = addressList(b['bcc']);
  const replyTo = addressList(b['reply_to']);
  if (cc === 'invalid') return resendError(422, 'validation_error', `Invalid \`cc\` field. ${FORMAT_HINT}`);
  if (bcc === 'invalid') return resendError(422, 'validation_error', `Invalid \`bcc\` field. ${FORMAT_HINT}`);
  if (replyTo === 'invalid') return resendError(422, 'validation_error', `Invalid \`reply_to\` field. ${FORMAT_HINT}`);
  if (typeof b['subject'] !== 'string' || b['subject'] === '') return resendError(422, 'missing_required_field', 'Missing `subject` field.');
  const html = typeof b['html'] === 'string' ? b['html'] : null;
  const text = typeof b['text'] === 'string' ? b['text'] : null;
  if (html === null && text === null && b['template'] === undefined) {
    return resendError(422, 'validation_error', 'Missing `html` or `text` field.');
  }
  const from = b['from'];
  const email: SentEmail = {
    id: resendId(),
    from,
    to,
    cc,
    bcc,
    replyTo,
    subject: b['subject'],
    html,
    text,
    tags: Array.isArray(b['tags']) ? (b['tags'] as { name: string; value: string }[]) : undefined,
    scheduledAt: typeof b['scheduled_at'] === 'string' ? b['scheduled_at'] : null,
    messageId: '',
    headers: stringRecord(b['headers']),
    lastEvent: 'sent',
    createdAt: new Date(),
  };
  email.messageId = `<${email.id}@${state.settings.emailDomains[0] ?? 'resend.dev'}>`;
  state.resend.sent.set(email.id, email);
  state.messages.push({
    provider: 'resend',
    channel: 'email',
    id: email.id,
    from,
    to: to.join(', '),
    body: text ?? '',
    subject: email.subject,
    ...(html !== null ? { html } : {}),
    ...(Object.keys(email.headers).length > 0 ? { headers: email.headers } : {}),
    mediaUrls: [],
    at: email.createdAt,
  });
  const silent = state.silenced.get('resend');
  // A silenced Resend (`Simulator.silence`): the email comes to its outcome unannounced; only `last_event` tells.
  if (silent && silent !== 'sent') state.tasks.run(state.settings.statusCallbackDelayMs, () => (email.lastEvent = silent === 'delivered' ? 'delivered' : 'bounced'));
  return { status: 200, json: { id: email.id } };
}

/** `2023-04-03T22:13:42.674000+00:00`, as Resend's API writes created_at. */
export function resendTimestamp(date: Date): string {
  return date.toISOString().replace('Z', '000+00:00');
}

export function sentEmailJson(email: SentEmail): Record<string, unknown> {
  return {
    object: 'email',
    id: email.id,
    to: email.to,
    from: email.from,
    created_at: resendTimestamp(email.createdAt),
    subject: email.subject,
    html: email.html,
    text: email.text,
    bcc: email.bcc,
    cc: email.cc,
    reply_to: email.replyTo,
    last_event: email.lastEvent,
    scheduled_at: email.scheduledAt,
    message_id: email.messageId,
    ...(email.tags ? { tags: email.tags } : {}),
  };
}

export function receivedEmailJson(email: ReceivedEmail, withContent: boolean): Record<string, unknown> {
  const summary: Record<string, unknown> = {
    id: email.id,
    to: email.to,
    from: email.from,
    created_at: resendTimestamp(email.createdAt),
    subject: email.subject,
    bcc: email.bcc,
    cc: email.cc,
    reply_to: email.replyTo,
    received_for: email.to,
    message_id: email.messageId,
    attachments: [],
  };
  if (!withContent) return summary;
  return { object: 'email', ...summary, html: email.html, text: email.text, headers: email.headers, raw: null };
}

function checkId(id: string): SimResponse | undefined {
  return UUID.test(id) ? undefined : resendError(422, 'invalid_parameter', 'The `id` must be a valid UUID.');
}

export function getSentEmail(state: SimulatorState, id: string): SimResponse {
  const invalid = checkId(id);
  if (invalid) return invalid;
  const email = state.resend.sent.get(id);
  return email ? { status: 200, json: sentEmailJson(email) } : resendError(404, 'not_found', 'Email not found');
}

export function getReceivedEmail(state: SimulatorState, id: string): SimResponse {
  const invalid = checkId(id);
  if (invalid) return invalid;
  const email = state.resend.received.get(id);
  return email ? { status: 200, json: receivedEmailJson(email, true) } : resendError(404, 'not_found', 'Email not found');
}

export function listReceivedEmails(state: SimulatorState): SimResponse {
  const data = state.resend.received.values().reverse().map((e) => receivedEmailJson(e, false));
  return { status: 200, json: { object: 'list', has_more: false, data } };
}
