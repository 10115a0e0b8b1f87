import { createHash } from 'node:crypto';
import type { MessageStatus } from '@switchboard/sdk';
import { inboundData } from '../delivery/events.js';
import { newId } from '../ids.js';
import type { NewInboxEntry } from '../store/repositories/inbox.js';
import type { MessageRecord } from '../store/repositories/messages.js';

/**
 * The conversation of an agent with one counterpart: a stable id derived from the agent and the
 * counterpart's address, so SMS and WhatsApp from one number are one conversation. Linking addresses
 * across channels (a customer who texts, then emails) is not done yet; it will map addresses onto
 * these ids.
 */
export function conversationIdOf(agentId: string, address: string): string {
  const digest = createHash('sha256').update(`${agentId}\0${normaliseAddress(address)}`).digest('base64url');
  return `cnv_${digest.slice(0, 22)}`;
}

function normaliseAddress(address: string): string {
  return address.trim().replace(/^whatsapp:/i, '').toLowerCase();
}

/** The message as an agent reads it (the inbound event's data, less what the entry itself names). */
function messagePayload(message: MessageRecord) {
  const { messageId: _id, channel: _channel, ...payload } = inboundData(message);
  return payload;
}

/** The entry of an inbound message: the message itself, so the agent needs no second call. */
export function receivedEntry(message: MessageRecord): NewInboxEntry {
  return {
    id: newId('inb'),
    type: 'message.received',
    agentId: message.agentId,
    channel: message.channel,
    counterpart: message.from,
    conversationId: conversationIdOf(message.agentId, message.from),
    messageId: message.id,
    status: message.status,
    payload: messagePayload(message),
    createdAt: new Date().toISOString(),
  };
}

/** What a status change of an outbound message adds to the message as stored. */
export interface StatusChange {
  readonly status: MessageStatus;
  readonly externalId?: string | null;
  readonly cost?: number | null;
  readonly error?: string | null;
}

/** The entry of an outbound message's status change (queued, sent, delivered, failed, undelivered). */
export function statusEntry(message: MessageRecord, change: StatusChange): NewInboxEntry {
  const externalId = change.externalId ?? message.externalId;
  return {
    id: newId('inb'),
    type: 'message.status',
    agentId: message.agentId,
    channel: message.channel,
    counterpart: message.to,
    conversationId: conversationIdOf(message.agentId, message.to),
    messageId: message.id,
    status: change.status,
    payload: {
      from: message.from,
      to: message.to,
      status: change.status,
      externalId: externalId ?? null,
      ...(change.cost === undefined || change.cost === null ? {} : { cost: change.cost }),
      ...(change.error ? { error: change.error } : {}),
    },
    createdAt: new Date().toISOString(),
  };
}
