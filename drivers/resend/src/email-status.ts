import type { DeliveryStatusEvent, MessageStatus, SentMessageRef } from '@switchboard/sdk';
import type { Resend } from 'resend';
import { REQUEST_TIMEOUT_MS, resendFailure, statusOfResendError } from './failure.js';
import { RESEND_ID, STATUS_OF_EVENT } from './webhooks.js';

/** `last_event` values that have no `email.*` webhook of their own name. */
const STATUS_OF_LAST_EVENT: Readonly<Record<string, MessageStatus>> = { queued: 'queued', canceled: 'failed' };

/**
 * Retrieves a sent email (`emails.get`) and reads its `last_event` as the receipt of that event would;
 * undefined when Resend does not know the id (404) or names an event the driver does not know yet.
 */
export async function fetchEmailStatus(resend: Resend, message: SentMessageRef): Promise<DeliveryStatusEvent | undefined> {
  // The SDK puts the id into the URL path as it is: only a Resend id may get there.
  if (!RESEND_ID.test(message.externalId)) return undefined;
  const { data, error } = await resend.emails.get(message.externalId, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (error) {
    if (statusOfResendError(error) === 404) return undefined;
    throw resendFailure(error);
  }
  const lastEvent: string = data.last_event;
  const status = STATUS_OF_EVENT[`email.${lastEvent}`] ?? STATUS_OF_LAST_EVENT[lastEvent];
  if (status === undefined) return undefined;
  return { type: 'status', channel: 'email', externalId: data.id, status, cost: null, ...(status === 'undelivered' || status === 'failed' ? { errorCode: lastEvent } : {}) };
}
