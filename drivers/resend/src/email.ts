import { SwitchboardError, ErrorCodes, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import type { CreateEmailOptions, Resend } from 'resend';
import { withSocketError } from './connection.js';
import { REQUEST_TIMEOUT_MS, resendFailure } from './failure.js';

/** The headers that thread a reply in the recipient's mail client (RFC 5322 §3.6.4). */
function threadHeaders(inReplyTo: string, references: readonly string[]): Record<string, string> {
  return { 'In-Reply-To': inReplyTo, References: references.join(' ') };
}

/** Sends one email; Resend's idempotency key makes a retried send harmless. */
export async function sendEmail(resend: Resend, message: OutboundMessage): Promise<SendResult> {
  if (message.subject === undefined || message.subject === '') {
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'An email needs a subject.');
  }
  const headers = { ...message.headers, ...(message.inReplyTo ? threadHeaders(message.inReplyTo, message.references ?? [message.inReplyTo]) : {}) };
  const email = {
    from: message.from,
    to: message.to,
    subject: message.subject,
    text: message.body,
    ...(message.html ? { html: message.html } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  } as CreateEmailOptions;
  const { result, socketError } = await withSocketError(message.idempotencyKey, () =>
    resend.emails.send(email, {
      ...(message.idempotencyKey ? { idempotencyKey: message.idempotencyKey } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    }),
  );
  const { data, error } = result;
  if (error) throw resendFailure(error, socketError);
  // Resend answers with the id only; delivery arrives later as email.sent / email.delivered events.
  return { externalId: data.id, status: 'accepted', cost: null, segments: 1 };
}
