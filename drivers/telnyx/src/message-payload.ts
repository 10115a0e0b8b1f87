import type { MessageStatus } from '@switchboard/sdk';
import { normaliseStatus } from './status.js';

/** The fields of Telnyx's message record (API answers and webhook payloads) the driver reads. */
export interface MessagePayload {
  readonly id?: string;
  readonly to?: readonly { readonly phone_number?: string; readonly status?: string }[] | string;
  readonly from?: { readonly phone_number?: string } | string;
  readonly text?: string;
  readonly media?: readonly { readonly url?: string }[];
  readonly parts?: number;
  readonly cost?: { readonly amount?: string; readonly currency?: string } | null;
  readonly errors?: readonly { readonly code?: string | number }[];
  readonly received_at?: string;
}

/** The first recipient's status, normalised. */
export function recipientStatus(message: MessagePayload): MessageStatus | undefined {
  return Array.isArray(message.to) ? normaliseStatus(message.to[0]?.status) : undefined;
}

/** The cost in USD when Telnyx has billed the message in USD, else null. */
export function costOf(message: MessagePayload): number | null {
  const cost = message.cost;
  if (!cost || typeof cost.amount !== 'string' || (cost.currency !== undefined && cost.currency !== 'USD')) return null;
  const value = Number(cost.amount);
  return Number.isFinite(value) ? Math.abs(value) : null;
}

/** The first error code Telnyx reports for the message, as a string. */
export function errorCodeOf(message: MessagePayload): string | undefined {
  const code = message.errors?.[0]?.code;
  return code === undefined || code === null ? undefined : String(code);
}
