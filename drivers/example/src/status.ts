import type { MessageStatus } from '@switchboard/sdk';

const STATUSES: readonly MessageStatus[] = ['queued', 'accepted', 'sending', 'sent', 'delivered', 'read', 'received', 'undelivered', 'failed'];

/** The provider already uses Switchboard's status names; anything else is unknown. */
export function toMessageStatus(status: unknown): MessageStatus | undefined {
  return STATUSES.find((s) => s === status);
}
