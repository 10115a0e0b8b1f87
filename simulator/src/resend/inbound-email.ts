import { Webhook } from 'svix';
import { resendId, svixMessageId } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import type { InboundEmailEventOptions, InboundEmailOptions, InboundResult, WebhookTampering } from '../inbound-types.js';
import { deliverWebhook, webhookUrl, type WebhookAnswer } from '../webhook-delivery.js';
import type { ReceivedEmail } from './resend-mailbox.js';

/** The bare address of `Name <a@b.c>`. */
function bareAddress(address: string): string {
  return /<([^>]+)>/.exec(address)?.[1]?.trim() ?? address.trim();
}

/**
 * POSTs a Resend webhook event signed through Svix (svix-id, svix-timestamp, svix-signature),
 * with the svix package's own signer. `tamper` edits the payload after signing.
 */
async function postSvixEvent(
  state: SimulatorState,
  url: string,
  event: { type: string; created_at: string; data: Record<string, unknown> },
  svixId: string,
  timestamp: Date,
  tampering: WebhookTampering,
): Promise<WebhookAnswer> {
  const payload = JSON.stringify(event);
  const signature = new Webhook(state.credentials.resend.webhookSecret).sign(svixId, timestamp, payload);
  const sent = tampering.tamper ? JSON.stringify({ ...event, data: { ...event.data, subject: `${String(event.data['subject'] ?? '')} [tampered]` } }) : payload;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Svix-Webhooks/1.76.1 (sender-sim; +https://www.svix.com/http-sender/)',
    'svix-id': svixId,
    'svix-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
  };
  if (!tampering.omitSignature) headers['svix-signature'] = signature;
  return deliverWebhook(url, headers, sent);
}

/** Stores an inbound email (for GET /emails/receiving/{id}) and posts its `email.received` event. */
export async function sendInboundEmail(state: SimulatorState, o: InboundEmailOptions): Promise<InboundResult> {
  const url = webhookUrl(state.gatewayUrl, o, 'email');
  const createdAt = new Date();
  const id = o.emailId ?? resendId();
  const messageId = `<${id.slice(0, 8)}.${createdAt.getTime()}@${bareAddress(o.from).split('@')[1] ?? 'mail.example.com'}>`;
  const email: ReceivedEmail = {
    id,
    from: o.from,
    to: [o.to],
    cc: o.cc ?? [],
    bcc: [],
    replyTo: null,
    subject: o.subject,
    html: o.html ?? null,
    text: o.text,
    headers: {
      from: o.from,
      to: o.to,
      subject: o.subject,
      date: createdAt.toUTCString(),
      'message-id': messageId,
      'mime-version': '1.0',
      'content-type': o.html ? 'multipart/alternative' : 'text/plain; charset=utf-8',
      ...o.headers,
    },
    messageId,
    createdAt,
  };
  state.resend.received.set(id, email);
  const event = {
    type: 'email.received',
    created_at: createdAt.toISOString(),
    data: {
      email_id: id,
      created_at: createdAt.toISOString(),
      from: o.from,
      to: [o.to],
      cc: email.cc,
      bcc: [],
      received_for: [bareAddress(o.to)],
      subject: o.subject,
      message_id: messageId,
      attachments: [],
    },
  };
  const svixId = o.svixId ?? svixMessageId();
  const answer = await postSvixEvent(state, url, event, svixId, o.timestamp ?? new Date(), o);
  return { ...answer, id, svixId, url };
}

/** Posts a delivery event (`email.sent`, `email.delivered`, `email.bounced`) for a sent email. */
export async function sendEmailEvent(state: SimulatorState, o: InboundEmailEventOptions): Promise<InboundResult> {
  const url = webhookUrl(state.gatewayUrl, o, 'email');
  const sent = state.resend.sent.get(o.emailId);
  if (sent) sent.lastEvent = o.type.slice('email.'.length);
  const now = new Date();
  const data: Record<string, unknown> = {
    created_at: (sent?.createdAt ?? now).toISOString(),
    email_id: o.emailId,
    message_id: sent?.messageId ?? `<${o.emailId}@resend.dev>`,
    from: sent?.from ?? `simulator@${state.settings.emailDomains[0] ?? 'resend.dev'}`,
    to: sent?.to ?? [],
    subject: sent?.subject ?? '',
  };
  if (sent?.tags) data['tags'] = Object.fromEntries(sent.tags.map((t) => [t.name, t.value]));
  if (o.type === 'email.bounced') {
    data['bounce'] = {
      message: "The recipient's email provider sent a hard bounce message, the address does not exist.",
      subType: 'General',
      type: 'Permanent',
    };
  }
  const svixId = o.svixId ?? svixMessageId();
  const answer = await postSvixEvent(state, url, { type: o.type, created_at: now.toISOString(), data }, svixId, o.timestamp ?? now, o);
  return { ...answer, id: o.emailId, svixId, url };
}
