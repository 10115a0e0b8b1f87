import { Type, type Static } from '@sinclair/typebox';
import { AgentId, ChannelName } from './common.js';
import { ConversationId } from './inbox.js';

const Cursor = Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'The nextCursor of the page before.' }));
const Direction = Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]);
/** An address as a channel names it: a phone number, an email address, a LINE user id. */
const Address = Type.String({ minLength: 1, maxLength: 320, pattern: '\\S', description: 'A phone number (E.164), an email address or a LINE user id.' });

export const ConversationListQuery = Type.Object(
  { agentId: Type.Optional(AgentId), limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }), cursor: Cursor },
  { additionalProperties: false },
);
export type ConversationListQuery = Static<typeof ConversationListQuery>;

export const ConversationQuery = Type.Object(
  { agentId: Type.Optional(AgentId), limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }), cursor: Cursor },
  { additionalProperties: false },
);
export type ConversationQuery = Static<typeof ConversationQuery>;

const Counterpart = Type.Object({
  channel: ChannelName,
  address: Type.String(),
  lastActivityAt: Type.String({ format: 'date-time' }),
});

const ConversationSummary = Type.Object({
  conversationId: ConversationId,
  counterparts: Type.Array(Counterpart, { description: 'The other party on each channel, latest first.' }),
  lastActivityAt: Type.String({ format: 'date-time' }),
  messages: Type.Integer({ minimum: 0 }),
  calls: Type.Integer({ minimum: 0 }),
});

export const ConversationListResponse = Type.Object({
  agentId: AgentId,
  conversations: Type.Array(ConversationSummary, { description: 'Latest activity first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

const TimelineItem = Type.Object(
  {
    kind: Type.Union([Type.Literal('message'), Type.Literal('call')]),
    id: Type.String({ description: 'The messageId, or the callSid.' }),
    channel: ChannelName,
    direction: Direction,
    from: Type.String(),
    to: Type.String(),
    status: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    subject: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    body: Type.Optional(Type.String()),
    externalId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    durationSeconds: Type.Optional(Type.Number()),
    endedAt: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    transcript: Type.Optional(Type.Array(Type.Object({ role: Type.String(), text: Type.String(), at: Type.String() }, { additionalProperties: true }))),
  },
  { description: 'A message (subject, body, externalId) or a call (durationSeconds, endedAt, transcript).' },
);

/** WhatsApp's 24-hour customer service window, opened by the counterpart's last WhatsApp message. */
export const ServiceWindow = Type.Object(
  {
    channel: Type.Literal('whatsapp'),
    open: Type.Boolean({ description: 'Whether a free-form WhatsApp message may go out now; when false only an approved template may.' }),
    closesAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it closes (or closed): 24 hours after lastInboundAt; null when the counterpart never wrote on WhatsApp.' }),
    lastInboundAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: "The counterpart's last WhatsApp message." }),
  },
  { description: "WhatsApp's 24-hour customer service window of the conversation." },
);

export const ConversationResponse = Type.Object({
  agentId: AgentId,
  conversationId: ConversationId,
  counterparts: Type.Array(Counterpart),
  linkedAddresses: Type.Array(Type.String(), { description: 'Addresses the agent linked into this conversation.' }),
  serviceWindow: Type.Union([ServiceWindow, Type.Null()], { description: 'For a conversation on WhatsApp: its service window; null otherwise.' }),
  items: Type.Array(TimelineItem, { description: 'Messages and calls across channels, newest first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const LinkContactsBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    addresses: Type.Array(Address, {
      minItems: 2,
      maxItems: 20,
      description: "The first address's conversation takes the others (and whatever was linked into theirs).",
    }),
  },
  { additionalProperties: false },
);
export type LinkContactsBody = Static<typeof LinkContactsBody>;

export const LinkContactsResponse = Type.Object({
  agentId: AgentId,
  conversationId: ConversationId,
  linkedAddresses: Type.Array(Type.String()),
});
