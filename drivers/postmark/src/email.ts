import { ErrorCodes, SwitchboardError, providerError, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import type { ServerClient } from 'postmark';
import { postmarkFailure } from './failure.js';

/** The Metadata key that carries the send's idempotency key: Postmark takes no idempotency key of its own. */
export const SEND_KEY = 'switchboard_send';

/** Postmark's limit on a Metadata value. */
const METADATA_VALUE_MAX = 80;

/** The headers that thread a reply in the recipient's mail client (RFC 5322 §3.6.4). */
function threadHeaders(inReplyTo: string, references: readonly string[]): Record<string, string> {
  return { 'In-Reply-To': inReplyTo, References: references.join(' ') };
}

/**
 * Sends one email (POST /email) through the message stream. Postmark deduplicates nothing, so the
 * idempotency key goes into Metadata, where {@link findSent} recognises the send after a lost answer.
 */
export async function sendEmail(client: ServerClient, messageStream: string, message: OutboundMessage): Promise<SendResult> {
  if (message.subject === undefined || message.subject === '') {
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'An email needs a subject.');
  }
  const headers = { ...message.headers, ...(message.inReplyTo ? threadHeaders(message.inReplyTo, message.references ?? [message.inReplyTo]) : {}) };
  const key = message.idempotencyKey;
  let answer;
  try {
    answer = await client.sendEmail({
      From: message.from,
      To: message.to,
      Subject: message.subject,
      TextBody: message.body,
      ...(message.html ? { HtmlBody: message.html } : {}),
      ...(Object.keys(headers).length > 0 ? { Headers: Object.entries(headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
      ...(key && key.length <= METADATA_VALUE_MAX ? { Metadata: { [SEND_KEY]: key } } : {}),
      MessageStream: messageStream,
    });
  } catch (err) {
    throw postmarkFailure(err);
  }
  if (!answer?.MessageID) throw providerError('postmark', new Error(`the answer carries no MessageID (ErrorCode ${answer?.ErrorCode ?? '?'}: ${answer?.Message ?? ''})`), 502);
  // Postmark answers once it queued the email; Delivery and Bounce webhooks tell the rest.
  return { externalId: answer.MessageID.toLowerCase(), status: 'accepted', cost: null, segments: 1 };
}
