import type { MessageStatus } from '@switchboard/sdk';

const STATUS: Readonly<Record<string, MessageStatus>> = {
  queued: 'queued',
  scheduled: 'queued',
  accepted: 'accepted',
  sending: 'sending',
  sent: 'sent',
  delivered: 'delivered',
  partially_delivered: 'delivered',
  read: 'read',
  receiving: 'received',
  received: 'received',
  undelivered: 'undelivered',
  failed: 'failed',
  canceled: 'failed',
};

/** Twilio's message status as a normalised MessageStatus, or undefined for a status Twilio may add later. */
export function normaliseStatus(status: string | undefined): MessageStatus | undefined {
  return status === undefined ? undefined : STATUS[status.toLowerCase()];
}
