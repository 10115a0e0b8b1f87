import { randomUUID } from 'node:crypto';
import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { SimulatorState } from '../simulator-state.js';
import { postmarkError } from './postmark-errors.js';
import { postmarkTime, type PostmarkSentEmail } from './postmark-ledger.js';

const ADDRESS = /^[^\s@<>",]+@[^\s@<>",]+\.[^\s@<>",]+$/;
const NAMED = /^[^<>]*<\s*([^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)\s*>$/;
const MAX_RECIPIENTS = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `a@b.c` or `Name <a@b.c>` → `a@b.c`; undefined when it is neither. */
function addressOf(value: string): string | undefined {
  const v = value.trim();
  if (ADDRESS.test(v)) return v;
  return NAMED.exec(v)?.[1];
}

/** A comma-separated recipient list (`To`, `Cc`, `Bcc`), or the first entry that is no address. */
function recipients(value: unknown): { list: string[] } | { invalid: string } {
  if (value === undefined || value === null || value === '') return { list: [] };
  if (typeof value !== 'string') return { invalid: String(value) };
  const list: string[] = [];
  for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const address = addressOf(part);
    if (!address) return { invalid: part };
    list.push(address);
  }
  return { list };
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** `Headers: [{Name, Value}]` as a record. */
function headerRecord(value: unknown): Record<string, string> {
  if (!Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const h of value as { Name?: unknown; Value?: unknown }[]) if (typeof h?.Name === 'string' && typeof h.Value === 'string') out[h.Name] = h.Value;
  return out;
}

/** POST /email: validates as Postmark does (ErrorCode 300, 400, 406), stores and records the email. */
export function sendEmail(state: SimulatorState, req: SimRequest): SimResponse {
  if (req.bodyError !== undefined || typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    return postmarkError(422, 402, 'Received invalid JSON input.');
  }
  const b = req.body as Record<string, unknown>;
  const from = typeof b['From'] === 'string' ? addressOf(b['From']) : undefined;
  if (!from) return postmarkError(422, 300, "Invalid 'From' address: 'missing or malformed'.");
  const domain = from.split('@')[1]!.toLowerCase();
  if (!state.settings.emailDomains.some((d) => d.toLowerCase() === domain)) {
    return postmarkError(422, 400, `The 'From' address you supplied (${from}) is not a Sender Signature on your account. Please add and confirm this address in order to be able to use it in the 'From' field of your messages.`);
  }
  const to = recipients(b['To']);
  if ('invalid' in to) return postmarkError(422, 300, `Invalid 'To' address: '${to.invalid}'.`);
  if (to.list.length === 0) return postmarkError(422, 300, 'Zero recipients specified');
  const cc = recipients(b['Cc']);
  const bcc = recipients(b['Bcc']);
  if ('invalid' in cc) return postmarkError(422, 300, `Invalid 'Cc' address: '${cc.invalid}'.`);
  if ('invalid' in bcc) return postmarkError(422, 300, `Invalid 'Bcc' address: '${bcc.invalid}'.`);
  if (to.list.length + cc.list.length + bcc.list.length > MAX_RECIPIENTS) return postmarkError(422, 300, `Too many recipients: at most ${MAX_RECIPIENTS} in To, Cc and Bcc together.`);
  const textBody = typeof b['TextBody'] === 'string' && b['TextBody'] !== '' ? b['TextBody'] : null;
  const htmlBody = typeof b['HtmlBody'] === 'string' && b['HtmlBody'] !== '' ? b['HtmlBody'] : null;
  if (textBody === null && htmlBody === null) return postmarkError(422, 300, 'Provide either email TextBody or HtmlBody or both.');
  const inactive = [...to.list, ...cc.list, ...bcc.list].filter((a) => state.postmark.inactive.has(a.toLowerCase()));
  if (inactive.length > 0) {
    return postmarkError(
      422,
      406,
      `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${inactive.join(', ')}. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression.`,
    );
  }
  const email: PostmarkSentEmail = {
    messageId: randomUUID(),
    from: b['From'] as string,
    to: to.list,
    cc: cc.list,
    bcc: bcc.list,
    subject: typeof b['Subject'] === 'string' ? b['Subject'] : '',
    textBody,
    htmlBody,
    tag: typeof b['Tag'] === 'string' ? b['Tag'] : '',
    messageStream: typeof b['MessageStream'] === 'string' && b['MessageStream'] !== '' ? b['MessageStream'] : 'outbound',
    headers: headerRecord(b['Headers']),
    metadata: stringRecord(b['Metadata']),
    events: [],
    submittedAt: state.clock.now(),
  };
  state.postmark.sent.set(email.messageId, email);
  state.messages.push({
    provider: 'postmark',
    channel: 'email',
    id: email.messageId,
    from: email.from,
    to: to.list.join(', '),
    body: textBody ?? '',
    subject: email.subject,
    ...(htmlBody !== null ? { html: htmlBody } : {}),
    ...(Object.keys(email.headers).length > 0 ? { headers: email.headers } : {}),
    mediaUrls: [],
    at: email.submittedAt,
  });
  return { status: 200, json: { To: to.list.join(', '), SubmittedAt: postmarkTime(email.submittedAt), MessageID: email.messageId, ErrorCode: 0, Message: 'OK' } };
}

const people = (list: string[]) => list.map((Email) => ({ Email, Name: '' }));

function summaryJson(email: PostmarkSentEmail): Record<string, unknown> {
  return {
    Tag: email.tag,
    MessageID: email.messageId,
    MessageStream: email.messageStream,
    To: people(email.to),
    Cc: people(email.cc),
    Bcc: people(email.bcc),
    Recipients: [...email.to, ...email.cc, ...email.bcc],
    ReceivedAt: postmarkTime(email.submittedAt),
    From: email.from,
    Subject: email.subject,
    Attachments: [],
    Status: 'Sent',
    TrackOpens: false,
    TrackLinks: 'None',
    Metadata: email.metadata,
    Sandboxed: false,
  };
}

/** Postmark's date filters: a date, or a date and time without offset read as Eastern time (-05:00 here). */
function easternDate(value: string | null): number | undefined {
  if (!value) return undefined;
  const withTime = value.includes('T') ? value : `${value}T00:00:00`;
  const time = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(withTime) ? withTime : `${withTime}-05:00`);
  return Number.isNaN(time) ? undefined : time;
}

/** GET /messages/outbound: the sent emails matching the filters, newest first, paged by count and offset. */
export function searchOutbound(state: SimulatorState, params: URLSearchParams): SimResponse {
  // Postmark reads query parameters in any case (`fromemail`, the SDK's `fromEmail`).
  const query = new URLSearchParams([...params].map(([k, v]): [string, string] => [k.toLowerCase(), v]));
  const count = Number(query.get('count') ?? '');
  const offset = Number(query.get('offset') ?? '0');
  if (!Number.isInteger(count) || count < 1 || count > 500) return postmarkError(422, 0, "The 'count' parameter is required, between 1 and 500.");
  if (!Number.isInteger(offset) || offset < 0) return postmarkError(422, 0, "The 'offset' parameter must be a number, 0 or more.");
  const recipient = query.get('recipient')?.toLowerCase();
  const fromEmail = query.get('fromemail')?.toLowerCase();
  const subject = query.get('subject');
  const tag = query.get('tag');
  const stream = query.get('messagestream');
  const fromDate = easternDate(query.get('fromdate'));
  const toDate = easternDate(query.get('todate'));
  const matching = state.postmark.sent
    .values()
    .reverse()
    .filter(
      (e) =>
        (!recipient || [...e.to, ...e.cc, ...e.bcc].some((a) => a.toLowerCase() === recipient)) &&
        (!fromEmail || (addressOf(e.from) ?? e.from).toLowerCase() === fromEmail) &&
        (!subject || e.subject === subject) &&
        (!tag || e.tag === tag) &&
        (!stream || e.messageStream === stream) &&
        (fromDate === undefined || e.submittedAt.getTime() >= fromDate) &&
        (toDate === undefined || e.submittedAt.getTime() <= toDate),
    );
  return { status: 200, json: { TotalCount: matching.length, Messages: matching.slice(offset, offset + count).map(summaryJson) } };
}

/** GET /messages/outbound/{id}/details: the email with its bodies and its MessageEvents; 422 ErrorCode 701 when unknown. */
export function outboundDetails(state: SimulatorState, id: string): SimResponse {
  const email = UUID.test(id) ? state.postmark.sent.get(id.toLowerCase()) : undefined;
  if (!email) return postmarkError(422, 701, 'This message was not found or no longer available.');
  return {
    status: 200,
    json: {
      ...summaryJson(email),
      TextBody: email.textBody ?? '',
      HtmlBody: email.htmlBody ?? '',
      Body: email.textBody ?? email.htmlBody ?? '',
      MessageEvents: email.events,
    },
  };
}

/** PUT /bounces/{id}/activate: the address may be sent to again. */
export function activateBounce(state: SimulatorState, id: string): SimResponse {
  const bounce = /^\d+$/.test(id) ? state.postmark.bounces.get(Number(id)) : undefined;
  if (!bounce) return postmarkError(422, 407, 'Bounce not found.');
  bounce.inactive = false;
  state.postmark.inactive.delete(bounce.email.toLowerCase());
  return { status: 200, json: { Message: 'OK', Bounce: { ID: bounce.id, Type: bounce.type, Email: bounce.email, Inactive: false, CanActivate: true } } };
}
