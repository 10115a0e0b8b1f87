import type { MessageStatus } from '@switchboard/sdk';

const STATUS: Readonly<Record<string, MessageStatus>> = {
  queued: 'queued',
  sending: 'sending',
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  // The carrier never reported: as sent, as Twilio's messages that stay `sent`.
  delivery_unconfirmed: 'sent',
  delivery_failed: 'undelivered',
  sending_failed: 'failed',
  expired: 'failed',
  webhook_delivered: 'received',
  received: 'received',
};

/** A Telnyx recipient status as a normalised MessageStatus, or undefined for a status Telnyx may add later. */
export function normaliseStatus(status: string | undefined): MessageStatus | undefined {
  return status === undefined ? undefined : STATUS[status.toLowerCase()];
}
