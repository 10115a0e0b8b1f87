import type { MessageStatus } from '@switchboard/sdk';

const STATUS: Readonly<Record<string, MessageStatus>> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  failed: 'failed',
};

/** A Cloud API status (`statuses[].status`) as a normalised MessageStatus; undefined for others (`deleted`, `warning`). */
export function normaliseStatus(status: string | undefined): MessageStatus | undefined {
  return status === undefined ? undefined : STATUS[status.toLowerCase()];
}
