import { randomUUID } from 'node:crypto';
import type { SimulatorState } from '../simulator-state.js';
import type { InboundPostmarkEmailOptions, InboundPostmarkEventOptions, InboundResult, PostmarkWebhookAuth } from '../inbound-types.js';
import { deliverWebhook, webhookUrl, type WebhookAnswer } from '../webhook-delivery.js';
import { postmarkTime } from './postmark-ledger.js';

/** The bare address of `Name <a@b.c>`, and the name. */
function parts(address: string): { email: string; name: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(address);
  return match ? { email: match[2]!.trim(), name: match[1]!.trim() } : { email: address.trim(), name: '' };
}

/**
 * POSTs a webhook as Postmark does: JSON, no signature. Postmark signs nothing; it sends the HTTP Basic
 * credentials written into the webhook URL (`https://user:pass@host/…`). Credentials in `url` are used
 * the same way; otherwise the simulator's own (`credentials.postmark.webhookUsername/Password`), as if the
 * operator had pasted them into Postmark.
 */
async function postPostmarkWebhook(state: SimulatorState, target: string, payload: unknown, auth: PostmarkWebhookAuth): Promise<{ answer: WebhookAnswer; url: string }> {
  const url = new URL(target);
  const inUrl = url.username || url.password ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : undefined;
  url.username = '';
  url.password = '';
  const c = state.credentials.postmark;
  const credentials = auth.credentials ?? inUrl ?? { username: c.webhookUsername, password: c.webhookPassword };
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Postmark' };
  if (!auth.omitCredentials) headers['authorization'] = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  const answer = await deliverWebhook(url.href, headers, JSON.stringify(payload));
  return { answer, url: url.href };
}

/** An inbound email as Postmark's inbound webhook posts it (the whole parsed message, no fetch needed). */
export async function sendPostmarkInbound(state: SimulatorState, o: InboundPostmarkEmailOptions): Promise<InboundResult> {
  const target = webhookUrl(state.gatewayUrl, o, 'email');
  const from = parts(o.from);
  const to = parts(o.to);
  const now = state.clock.now();
  const messageId = o.messageId ?? randomUUID();
  const rfcMessageId = `<${messageId.slice(0, 8)}.${now.getTime()}@${from.email.split('@')[1] ?? 'mail.example.com'}>`;
  const date = now.toUTCString().replace('GMT', '+0000');
  const payload = {
    FromName: from.name,
    MessageStream: 'inbound',
    From: from.email,
    FromFull: { Email: from.email, Name: from.name, MailboxHash: '' },
    To: o.to,
    ToFull: [{ Email: to.email, Name: to.name, MailboxHash: '' }],
    Cc: '',
    CcFull: [],
    Bcc: '',
    BccFull: [],
    OriginalRecipient: to.email,
    Subject: o.subject,
    MessageID: messageId,
    ReplyTo: '',
    MailboxHash: '',
    Date: date,
    TextBody: o.text,
    HtmlBody: o.html ?? '',
    StrippedTextReply: '',
    Tag: '',
    Headers: [
      { Name: 'X-Spam-Checker-Version', Value: 'SpamAssassin 3.4.0 (2014-02-07) on p-pm-inboundg02a-aws-useast1a' },
      { Name: 'X-Spam-Status', Value: 'No' },
      { Name: 'X-Spam-Score', Value: '-0.1' },
      { Name: 'Message-ID', Value: rfcMessageId },
      ...Object.entries(o.headers ?? {}).map(([Name, Value]) => ({ Name, Value })),
    ],
    Attachments: [],
  };
  const { answer, url } = await postPostmarkWebhook(state, target, payload, o);
  return { ...answer, id: messageId, url };
}

const BOUNCES = {
  HardBounce: { TypeCode: 1, Name: 'Hard bounce', Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).' },
  SoftBounce: { TypeCode: 4096, Name: 'Soft bounce/Undeliverable', Description: 'Unable to temporarily deliver this email.' },
  SpamComplaint: { TypeCode: 512, Name: 'Spam complaint', Description: 'The subscriber explicitly marked this message as spam.' },
} as const;

/**
 * A Delivery, Bounce or SpamComplaint webhook for a sent email (RecordType as Postmark names it). A hard
 * bounce and a complaint deactivate the address at the simulated Postmark, as the real one does.
 */
export async function sendPostmarkEvent(state: SimulatorState, o: InboundPostmarkEventOptions): Promise<InboundResult> {
  const target = webhookUrl(state.gatewayUrl, o, 'email');
  const sent = state.postmark.sent.get(o.messageId);
  const recipient = o.recipient ?? sent?.to[0] ?? 'unknown@example.com';
  const now = state.clock.now();
  const common = { ServerID: state.postmark.serverId, MessageStream: sent?.messageStream ?? 'outbound', MessageID: o.messageId, Tag: sent?.tag ?? '', Metadata: sent?.metadata ?? {} };
  let payload: Record<string, unknown>;
  if (o.type === 'Delivery') {
    const details = 'smtp;250 2.0.0 OK';
    payload = { RecordType: 'Delivery', ...common, Recipient: recipient, DeliveredAt: postmarkTime(now), Details: details };
    sent?.events.push({ Recipient: recipient, Type: 'Delivered', ReceivedAt: postmarkTime(now), Details: { DeliveryMessage: details, DestinationServer: 'mx.example.com', DestinationIP: '192.0.2.25' } });
  } else {
    const bounce = state.postmark.addBounce(recipient, o.type);
    const kind = BOUNCES[o.type];
    payload = {
      RecordType: o.type === 'SpamComplaint' ? 'SpamComplaint' : 'Bounce',
      ...common,
      ID: bounce.id,
      Type: o.type,
      TypeCode: kind.TypeCode,
      Name: kind.Name,
      Description: kind.Description,
      Details: o.type === 'SpamComplaint' ? '' : 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
      Email: recipient,
      From: sent?.from ?? `simulator@${state.settings.emailDomains[0] ?? 'switchboard.test'}`,
      BouncedAt: postmarkTime(now),
      DumpAvailable: false,
      Inactive: bounce.inactive,
      CanActivate: true,
      Subject: sent?.subject ?? '',
      Content: '',
    };
    sent?.events.push({
      Recipient: recipient,
      Type: o.type === 'SpamComplaint' ? 'SpamComplaint' : o.type === 'SoftBounce' ? 'Transient' : 'Bounced',
      ReceivedAt: postmarkTime(now),
      Details: { Summary: kind.Description, BounceID: String(bounce.id) },
    });
  }
  const { answer, url } = await postPostmarkWebhook(state, target, payload, o);
  return { ...answer, id: o.messageId, url };
}
