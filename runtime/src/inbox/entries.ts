import type { MessageStatus } from '@switchboard/sdk';
import { inboundData } from '../delivery/agent-events.js';
import { newId } from '../ids.js';
import { conversationIdOf, counterpartOf } from '../protocol/conversations.js';
import type { NewInboxEntry } from '../store/repositories/inbox.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { TranscriptLine } from '../protocol/call-record.js';
import { windowClosesAt } from '../conversations/service-window.js';

/** The message as an agent reads it (the inbound event's data, less what the entry itself names). */
function messagePayload(message: MessageRecord) {
  const { messageId: _id, channel: _channel, ...payload } = inboundData(message);
  return payload;
}

/**
 * The entry of an inbound message: the message itself, so the agent needs no second call. A WhatsApp
 * message also says until when the agent may answer free-form (its 24-hour service window).
 */
export function receivedEntry(message: MessageRecord): NewInboxEntry {
  const payload = messagePayload(message);
  return {
    id: newId('inb'),
    type: 'message.received',
    agentId: message.agentId,
    channel: message.channel,
    counterpart: message.from,
    conversationId: conversationIdOf(message.agentId, message.from),
    messageId: message.id,
    status: message.status,
    payload: message.channel === 'whatsapp' ? { ...payload, serviceWindow: { closesAt: windowClosesAt(message.createdAt) } } : payload,
    createdAt: new Date().toISOString(),
  };
}

/** What a status change of an outbound message adds to the message as stored. */
export interface StatusChange {
  readonly status: MessageStatus;
  readonly externalId?: string | null;
  readonly cost?: number | null;
  readonly error?: string | null;
  /** Why the status is what it is: an `unknown` status's reason. */
  readonly reason?: string;
}

/** The entry of an outbound message's status change (queued, sent, delivered, failed, undelivered, unknown). */
export function statusEntry(message: Pick<MessageRecord, 'id' | 'agentId' | 'channel' | 'from' | 'to' | 'externalId' | 'provider'>, change: StatusChange): NewInboxEntry {
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
      ...(message.provider ? { provider: message.provider } : {}),
      ...(change.cost === undefined || change.cost === null ? {} : { cost: change.cost }),
      ...(change.error ? { error: change.error } : {}),
      ...(change.reason ? { reason: change.reason } : {}),
    },
    createdAt: new Date().toISOString(),
  };
}

/** The call an entry is about, as logged. */
export interface CallParties {
  readonly callSid: string;
  readonly agentId: string;
  readonly direction: 'inbound' | 'outbound';
  readonly from: string;
  readonly to: string;
}

/** The call's entry of one kind: the other party is the caller of an inbound call, the callee of an outbound one. */
function callEntry(call: CallParties, type: 'call.status' | 'call.transcript' | 'voicemail', status: string | null, details: Record<string, unknown>): NewInboxEntry {
  const counterpart = counterpartOf(call);
  return {
    id: newId('inb'),
    type,
    agentId: call.agentId,
    channel: 'voice',
    counterpart,
    conversationId: conversationIdOf(call.agentId, counterpart),
    messageId: null,
    status,
    payload: { callSid: call.callSid, direction: call.direction, from: call.from, to: call.to, ...details },
    createdAt: new Date().toISOString(),
  };
}

/** A call's status change: started (its first status), answered (`in-progress`), ended (`completed`, `busy`, `no-answer`, …). */
export function callStatusEntry(call: CallParties, status: string, durationSeconds: number | null = null, cost: number | null = null, reason?: string): NewInboxEntry {
  return callEntry(call, 'call.status', status, { status, ...(durationSeconds === null ? {} : { durationSeconds }), ...(cost === null ? {} : { cost }), ...(reason ? { reason } : {}) });
}

/** What was said on the call, once its media connection closed. */
export function callTranscriptEntry(call: CallParties, endedAt: string, transcript: readonly TranscriptLine[]): NewInboxEntry {
  return callEntry(call, 'call.transcript', null, { endedAt, transcript });
}

/** A message a call took for the agent (its transcript). */
export function voicemailEntry(call: CallParties, subject: string, body: string): NewInboxEntry {
  return callEntry(call, 'voicemail', null, { subject, body });
}
