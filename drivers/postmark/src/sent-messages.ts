import { bareAddress, type DeliveryStatusEvent, type MessageStatus, type OutboundMessage, type SendResult, type SentMessageRef } from '@switchboard/sdk';
import type { ServerClient } from 'postmark';
import { SEND_KEY } from './email.js';
import { MESSAGE_NOT_FOUND, postmarkCodeOf, postmarkFailure, statusOfPostmarkError } from './failure.js';
import { POSTMARK_ID } from './webhooks.js';

/** Listed sends are compared with Postmark's clock this far back: the two clocks may disagree a little. */
const CLOCK_SKEW_MS = 30_000;

/** At most this many candidates are fetched one by one to compare their bodies. */
const MAX_CANDIDATES = 10;

/**
 * `since` as Postmark's date filters read it (Eastern time, no offset), an hour early so daylight
 * saving cannot move it late; the exact bound is applied to `ReceivedAt`, which carries its offset.
 */
function easternFilter(since: Date): string {
  return new Date(since.getTime() - 5 * 3_600_000 - 3_600_000).toISOString().slice(0, 19);
}

const normalised = (text: string | undefined) => (text ?? '').replace(/\r\n/g, '\n').trimEnd();

/**
 * The emails Postmark holds from `message.from` to `message.to` with its subject and text body, sent at
 * or after `since` (GET /messages/outbound, then each candidate's details for its body). One whose
 * Metadata names another send than this one is not it.
 */
export async function findSent(client: ServerClient, message: OutboundMessage, since: Date): Promise<SendResult[]> {
  let listed;
  try {
    listed = await client.getOutboundMessages({
      count: 50,
      offset: 0,
      recipient: bareAddress(message.to),
      fromEmail: bareAddress(message.from),
      fromDate: easternFilter(since),
    });
  } catch (err) {
    throw postmarkFailure(err);
  }
  const key = message.idempotencyKey;
  const candidates = (listed.Messages ?? []).filter((m) => {
    const at = Date.parse(m.ReceivedAt);
    const theirs = (m.Metadata as Record<string, string> | undefined)?.[SEND_KEY];
    return !Number.isNaN(at) && at >= since.getTime() - CLOCK_SKEW_MS && (m.Subject ?? '') === (message.subject ?? '') && !(key && theirs && theirs !== key);
  });
  const found: SendResult[] = [];
  for (const candidate of candidates.slice(0, MAX_CANDIDATES)) {
    if (!POSTMARK_ID.test(candidate.MessageID)) continue;
    let details;
    try {
      details = await client.getOutboundMessageDetails(candidate.MessageID);
    } catch (err) {
      throw postmarkFailure(err);
    }
    if (normalised(details.TextBody) !== normalised(message.body)) continue;
    found.push({ externalId: candidate.MessageID.toLowerCase(), status: 'accepted', cost: null, segments: 1 });
  }
  return found;
}

/** `MessageEvents` types and the status each means; the furthest one reached is the message's status. */
const STATUS_OF_EVENT: Readonly<Record<string, MessageStatus>> = {
  Transient: 'sending',
  Delivered: 'delivered',
  SpamComplaint: 'delivered',
  Opened: 'read',
  LinkClicked: 'read',
  Bounced: 'undelivered',
};
const RANK: Readonly<Partial<Record<MessageStatus, number>>> = { queued: 0, sent: 1, sending: 2, delivered: 3, read: 4, undelivered: 5 };

/** The message's `Status` before any event: Postmark says `Queued` until it hands it on, then `Sent`. */
const STATUS_OF_STATE: Readonly<Record<string, MessageStatus>> = { Queued: 'queued', Sent: 'sent', Processed: 'sent' };

/**
 * Reads a sent email's details (GET /messages/outbound/{id}/details): its events' furthest status, else
 * its own; undefined when Postmark does not know the id (ErrorCode 701).
 */
export async function fetchEmailStatus(client: ServerClient, ref: SentMessageRef): Promise<DeliveryStatusEvent | undefined> {
  // The SDK puts the id into the URL path as it is: only a Postmark id may get there.
  if (!POSTMARK_ID.test(ref.externalId)) return undefined;
  let details;
  try {
    details = await client.getOutboundMessageDetails(ref.externalId);
  } catch (err) {
    if (postmarkCodeOf(err) === MESSAGE_NOT_FOUND || statusOfPostmarkError(err) === 404) return undefined;
    throw postmarkFailure(err);
  }
  let status: MessageStatus | undefined = STATUS_OF_STATE[details.Status];
  let errorCode: string | undefined;
  for (const event of details.MessageEvents ?? []) {
    const next = STATUS_OF_EVENT[event.Type];
    if (next === undefined || (status !== undefined && (RANK[next] ?? 0) < (RANK[status] ?? 0))) continue;
    status = next;
    if (next === 'undelivered') errorCode = event.Type;
  }
  if (status === undefined) return undefined;
  return { type: 'status', channel: 'email', externalId: ref.externalId.toLowerCase(), status, cost: null, ...(errorCode ? { errorCode } : {}) };
}
