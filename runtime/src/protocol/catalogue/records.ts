import { Type, type Static } from '@sinclair/typebox';
import { Agent, Channel, Nullable, Page, entries } from './shapes.js';

/** What the agent reads of its history: its inbox and its conversations. */

/** What an inbox entry tells the agent (store/repositories/inbox.ts). */
export const INBOX_ENTRY_TYPES = ['message.received', 'message.status', 'call.status', 'call.transcript', 'voicemail'] as const;

/** One entry of an agent's inbox (store/repositories/inbox.ts). */
const InboxEntrySchema = Type.Object({
  cursor: Type.Integer({ minimum: 1 }),
  id: Type.String(),
  type: Type.Union(INBOX_ENTRY_TYPES.map((type) => Type.Literal(type))),
  agentId: Type.String(),
  channel: Channel,
  counterpart: Type.String(),
  conversationId: Type.String(),
  messageId: Nullable(Type.String()),
  status: Nullable(Type.String()),
  payload: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String(),
});

/** A read of the inbox: from `after`, or from the acknowledged cursor when it is absent. */
const InboxReadRequestSchema = Type.Object({
  ...Agent,
  after: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Integer({ minimum: 1 }),
  channel: Type.Optional(Channel),
  conversationId: Type.Optional(Type.String()),
});

const InboxReadSchema = Type.Object({
  agentId: Type.String(),
  entries: Type.Array(InboxEntrySchema),
  /** The cursor to read after next time (the last entry's, or further when a filter skipped entries). */
  nextCursor: Type.Integer({ minimum: 0 }),
  hasMore: Type.Boolean(),
  ackedCursor: Type.Integer({ minimum: 0 }),
  lastCursor: Type.Integer({ minimum: 0 }),
});

const InboxAckSchema = Type.Object({ agentId: Type.String(), ackedCursor: Type.Integer({ minimum: 0 }), lastCursor: Type.Integer({ minimum: 0 }) });

/** The other party of a conversation on one channel, with its activity. */
const CounterpartSchema = Type.Object({ channel: Channel, address: Type.String(), lastActivityAt: Type.String() });

/** A conversation as its list shows it. */
const ConversationSummarySchema = Type.Object({
  conversationId: Type.String(),
  counterparts: Type.Array(CounterpartSchema),
  lastActivityAt: Type.String(),
  messages: Type.Integer({ minimum: 0 }),
  calls: Type.Integer({ minimum: 0 }),
});

/** One message or call of a conversation's timeline. */
const TimelineItemSchema = Type.Object({
  kind: Type.Union([Type.Literal('message'), Type.Literal('call')]),
  id: Type.String(),
  channel: Channel,
  direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
  from: Type.String(),
  to: Type.String(),
  status: Type.String(),
  createdAt: Type.String(),
  subject: Type.Optional(Nullable(Type.String())),
  body: Type.Optional(Type.String()),
  externalId: Type.Optional(Nullable(Type.String())),
  durationSeconds: Type.Optional(Type.Number()),
  endedAt: Type.Optional(Nullable(Type.String())),
  transcript: Type.Optional(Type.Array(Type.Object({ role: Type.String(), text: Type.String(), at: Type.String() }, { additionalProperties: true }))),
});

/** The WhatsApp 24-hour customer service window (conversations/service-window.ts). */
const ServiceWindowSchema = Type.Object({
  channel: Type.Literal('whatsapp'),
  open: Type.Boolean(),
  closesAt: Nullable(Type.String()),
  lastInboundAt: Nullable(Type.String()),
});

const ConversationListSchema = Type.Object({ agentId: Type.String(), conversations: Type.Array(ConversationSummarySchema), nextCursor: Nullable(Type.String()) });
const ConversationSchema = Type.Object({
  agentId: Type.String(),
  conversationId: Type.String(),
  counterparts: Type.Array(CounterpartSchema),
  linkedAddresses: Type.Array(Type.String()),
  /** With a WhatsApp counterpart: whether a free-form WhatsApp message may go out now; null otherwise. */
  serviceWindow: Nullable(ServiceWindowSchema),
  items: Type.Array(TimelineItemSchema),
  nextCursor: Nullable(Type.String()),
});

export const RECORD_ENTRIES = entries({
  inboxRead: { request: InboxReadRequestSchema, answer: InboxReadSchema, mailbox: false, tenure: false },
  inboxAck: { request: Type.Object({ ...Agent, upTo: Type.Integer({ minimum: 0 }) }), answer: InboxAckSchema, mailbox: true, tenure: false },
  conversations: { request: Type.Object({ ...Agent, ...Page }), answer: ConversationListSchema, mailbox: false, tenure: false },
  conversation: { request: Type.Object({ ...Agent, ...Page, conversationId: Type.String() }), answer: ConversationSchema, mailbox: false, tenure: false },
  linkContacts: {
    request: Type.Object({ ...Agent, addresses: Type.Array(Type.String(), { minItems: 2 }) }),
    answer: Type.Object({ agentId: Type.String(), conversationId: Type.String(), linkedAddresses: Type.Array(Type.String()) }),
    mailbox: true,
    tenure: false,
  },
});

export type InboxRead = Static<typeof InboxReadSchema>;
