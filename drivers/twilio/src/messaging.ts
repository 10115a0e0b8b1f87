import { providerError, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import type twilio from 'twilio';
import { toTwilioAddress } from './addresses.js';
import { countSegments } from './segments.js';
import type { TwilioSettings } from './settings.js';
import { normaliseStatus } from './status.js';
import { templateSid } from './templates.js';

type MessageCreateOptions = Parameters<twilio.Twilio['messages']['create']>[0];

/** Sends an SMS or WhatsApp message through the Messages API. */
export async function sendMessage(client: twilio.Twilio, settings: TwilioSettings, message: OutboundMessage): Promise<SendResult> {
  const params: MessageCreateOptions = { to: toTwilioAddress(message.channel, message.to) };
  if (message.template) {
    // A Content API template instead of a body: Twilio renders it with the variables (a JSON object of strings).
    params.contentSid = await templateSid(client, message.template);
    if (message.template.variables && Object.keys(message.template.variables).length > 0) params.contentVariables = JSON.stringify(message.template.variables);
  } else {
    params.body = message.body;
  }
  if (message.from) params.from = toTwilioAddress(message.channel, message.from);
  if (settings.messagingServiceSid) params.messagingServiceSid = settings.messagingServiceSid;
  if (message.mediaUrls && message.mediaUrls.length > 0) params.mediaUrl = [...message.mediaUrls];
  if (message.statusCallbackUrl) params.statusCallback = message.statusCallbackUrl;

  let sent;
  try {
    sent = await client.messages.create(params);
  } catch (err) {
    throw providerError('twilio', err, statusOf(err));
  }
  // Twilio renders a template: its answer's body is the text that was sent.
  return message.template && sent.body ? { ...resultOf(sent, message), body: sent.body } : resultOf(sent, message);
}

/**
 * Twilio's Messages API takes no idempotency key, so a send whose answer was lost is looked up instead:
 * the newest messages between the same two addresses, with the same body, created since `since`.
 */
export async function findSentMessages(client: twilio.Twilio, message: OutboundMessage, since: Date): Promise<SendResult[]> {
  // A template's text is Twilio's rendering, which a message list cannot be matched against: it is sent again.
  if (message.template) return [];
  let listed;
  try {
    listed = await client.messages.list({ to: toTwilioAddress(message.channel, message.to), from: toTwilioAddress(message.channel, message.from), limit: 50 });
  } catch (err) {
    throw providerError('twilio', err, statusOf(err));
  }
  return listed
    .filter((m) => m.body === message.body && m.dateCreated.getTime() >= since.getTime() - CLOCK_SKEW_MS)
    .map((m) => resultOf(m, message));
}

/** Twilio stamps messages with its own clock, to the second. */
const CLOCK_SKEW_MS = 5_000;

function resultOf(sent: { sid: string; status: string; price: string | null; numSegments: string | null }, message: OutboundMessage): SendResult {
  const segments = Number.parseInt(String(sent.numSegments ?? ''), 10);
  return {
    externalId: sent.sid,
    status: normaliseStatus(sent.status) ?? 'queued',
    cost: priceToCost(sent.price),
    segments: Number.isInteger(segments) && segments > 0 ? segments : countSegments(message.body).segments,
  };
}

/** Twilio prices are negative decimal strings (a debit); null until Twilio has priced the message. */
export function priceToCost(price: string | null | undefined): number | null {
  if (price === null || price === undefined || price.trim() === '') return null;
  const value = Number(price);
  return Number.isFinite(value) ? Math.abs(value) : null;
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
