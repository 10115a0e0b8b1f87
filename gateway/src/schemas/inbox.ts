import { Type, type Static } from '@sinclair/typebox';
import { AgentId, ChannelName } from './common.js';
import { INBOX_ENTRY_TYPES } from '@switchboard/runtime';

/** A position in the agent's inbox; 0 is before the first entry. */
export const cursor = (description = "A position in the agent's inbox; 0 is before the first entry.") =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });
export const ConversationId = Type.String({ pattern: '^cnv_[A-Za-z0-9_-]{1,64}$', description: 'The conversation of the agent with one counterpart.' });

export const InboxQuery = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    after: Type.Optional(cursor('Read entries after this cursor; absent: after the acknowledged cursor (every unacknowledged entry).')),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    channel: Type.Optional(ChannelName),
    conversationId: Type.Optional(ConversationId),
  },
  { additionalProperties: false },
);
export type InboxQuery = Static<typeof InboxQuery>;

export const InboxEntry = Type.Object({
  cursor: Type.Integer({ minimum: 1, description: 'Strictly increasing per agent.' }),
  id: Type.String({ description: 'Stable id of the entry.' }),
  type: Type.Union(INBOX_ENTRY_TYPES.map((type) => Type.Literal(type)), {
    description: 'message.received, message.status (an outbound message), call.status (started, answered, ended: each status change), call.transcript (when the call ends), voicemail.',
  }),
  agentId: AgentId,
  channel: ChannelName,
  counterpart: Type.String({ description: 'The other party: the sender of an inbound message, the recipient of an outbound one.' }),
  conversationId: ConversationId,
  messageId: Type.Union([Type.String(), Type.Null()], { description: "The message's id; null for a call's entries (their payload names the call)." }),
  status: Type.Union([Type.String(), Type.Null()], {
    description: "received, the outbound status (queued, accepted, sent, delivered, read, failed, undelivered, or unknown: no final status from the provider within RECONCILE_BOUND_MS, the payload's reason says why), or the call's (initiated, ringing, in-progress, completed, busy, no-answer, failed, canceled, unknown).",
  }),
  payload: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'message.received: from, to, subject, body, html, mediaUrls, externalId, receivedAt; on WhatsApp also serviceWindow {closesAt}, until when a free-form reply may go out. message.status: from, to, status, externalId, provider (the one that took it), cost, error, reason (why a status is unknown). call.status: callSid, direction, from, to, status, durationSeconds, cost, reason (why a status is unknown). call.transcript: callSid, direction, from, to, endedAt, transcript (role, text, at, turn, interrupted). voicemail: callSid, from, to, subject, body (the transcript).',
  }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const InboxResponse = Type.Object({
  agentId: AgentId,
  entries: Type.Array(InboxEntry),
  nextCursor: cursor('Pass as `after` to read on; acknowledge up to it once the entries are handled.'),
  hasMore: Type.Boolean(),
  ackedCursor: cursor(),
  lastCursor: cursor(),
});

export const InboxAckBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    upTo: cursor('Every entry up to and including this cursor is handled; never moves the acknowledged cursor back.'),
  },
  { additionalProperties: false },
);
export type InboxAckBody = Static<typeof InboxAckBody>;

export const InboxAckResponse = Type.Object({ agentId: AgentId, ackedCursor: cursor(), lastCursor: cursor() });
