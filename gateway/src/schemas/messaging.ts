import { Type, type Static } from '@sinclair/typebox';
import { MESSAGE_CHANNELS } from '@switchboard/sdk';
import { ConversationId } from './inbox.js';
import { AgentId, CALLBACK_URL_RULES, ChannelName } from './common.js';

/** The channels agents send on (the table's), in words: `sms, email, whatsapp or line`. */
const MESSAGE_CHANNEL_WORDS = `${MESSAGE_CHANNELS.slice(0, -1).join(', ')} or ${MESSAGE_CHANNELS.at(-1)}`;
const messageChannel = (description: string) => Type.Union(MESSAGE_CHANNELS.map((c) => Type.Literal(c)), { description });

const MessageChannel = messageChannel(`${MESSAGE_CHANNEL_WORDS}.`);

/** A WhatsApp template approved by the provider: the only message that may go outside the 24-hour service window. */
export const WhatsAppTemplate = Type.Object(
  {
    contentSid: Type.Optional(Type.String({ pattern: '^HX[0-9a-fA-F]{32}$', description: "Twilio's Content SID (HX…), from GET /api/v1/whatsapp/templates." })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: "The template's name, instead of `contentSid`; the approved one (in `language`, when given) is sent." })),
    language: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$', description: 'The template language, e.g. en or en_US.' })),
    variables: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]{1,64}$' }), Type.String({ maxLength: 1024 }), {
        maxProperties: 100,
        description: 'Values of the placeholders by name: {"1": "Sam", "2": "Friday"} fills {{1}} and {{2}}.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'On WhatsApp, instead of `body`: an approved template by `contentSid` or `name`, with its variables. The one message allowed outside the 24-hour customer service window.',
  },
);
export type WhatsAppTemplate = Static<typeof WhatsAppTemplate>;

export const SendMessageBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    channel: Type.Optional(
      messageChannel(`${MESSAGE_CHANNEL_WORDS}. Required with \`to\`; with \`conversationId\`, the channel to reply on (absent: the one the conversation last used).`),
    ),
    to: Type.Optional(Type.String({ minLength: 3, maxLength: 320, description: 'E.164 number (sms, whatsapp), email address, or LINE user id. Or name a `conversationId` instead.' })),
    conversationId: Type.Optional(
      Type.String({
        pattern: ConversationId.pattern,
        description: "Instead of `to`: reply in this conversation, to its counterpart's address on the channel (an email reply takes the last subject, \"Re: …\", unless `subject` is given).",
      }),
    ),
    body: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'The text. Required unless a WhatsApp `template` is sent instead (one of the two).' })),
    template: Type.Optional(WhatsAppTemplate),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 998, description: 'Required for email.' })),
    html: Type.Optional(Type.String({ maxLength: 500_000 })),
      mediaUrls: Type.Optional(Type.Array(Type.String({ format: 'uri', pattern: '^https?://' }), { maxItems: 10 })),
    marketing: Type.Optional(
      Type.Boolean({
        description:
          "A marketing message (a promotion, not something the person asked for). It needs marketing consent on record where the agent requires it (403 CONSENT_REQUIRED, kind marketing), and keeps the recipient's calling hours where the operator enforces them (403 OUTSIDE_CALLING_HOURS). Default false.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SendMessageBody = Static<typeof SendMessageBody>;

export const SendMessageResponse = Type.Object({
  success: Type.Literal(true),
  messageId: Type.String(),
  externalId: Type.String({ description: "The provider's id (MessageSid, email id, LINE message id)." }),
  status: Type.String(),
  channel: MessageChannel,
  from: Type.String(),
  to: Type.String(),
  cost: Type.Number({ description: 'USD, 4 places: the provider price when known, else the tariff.' }),
  provider: Type.Optional(Type.String({ description: "The provider that took the message: the channel's own, or the next in its routing order when the own one provably did not take it (docs/configuration.md, \"Routing and failover\")." })),
});

export const CallbackUrlBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    callbackUrl: Type.Union([Type.String({ format: 'uri', maxLength: 2048, description: CALLBACK_URL_RULES }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type CallbackUrlBody = Static<typeof CallbackUrlBody>;

export const CallbackUrlResponse = Type.Object({
  success: Type.Literal(true),
  agentId: AgentId,
  callbackUrl: Type.Union([Type.String(), Type.Null()]),
  signingSecret: Type.Union([Type.String({ description: 'Standard Webhooks secret (whsec_…) callbacks are signed with.' }), Type.Null()]),
});

export const WaitingMessagesQuery = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    channel: Type.Optional(ChannelName),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  },
  { additionalProperties: false },
);
export type WaitingMessagesQuery = Static<typeof WaitingMessagesQuery>;

export const DeadLetter = Type.Object({
  id: Type.String(),
  agentId: AgentId,
  channel: ChannelName,
  direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
  reason: Type.Union([Type.Literal('agent_offline'), Type.Literal('callback_failed'), Type.Literal('send_failed'), Type.Literal('voicemail')]),
  from: Type.String(),
  to: Type.String(),
  subject: Type.Optional(Type.String()),
  body: Type.String(),
  mediaUrls: Type.Array(Type.String()),
  externalId: Type.Union([Type.String(), Type.Null()]),
  error: Type.Optional(Type.String()),
  attempts: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const WaitingMessagesResponse = Type.Object({ messages: Type.Array(DeadLetter), count: Type.Integer() });

export const AgentQuery = Type.Object({ agentId: Type.Optional(AgentId) }, { additionalProperties: false });
export type AgentQuery = Static<typeof AgentQuery>;

export const ChannelStatusResponse = Type.Object({
  agentId: AgentId,
  channels: Type.Record(
    Type.String(),
    Type.Object({
      address: Type.Union([Type.String(), Type.Null()]),
      status: Type.Union([Type.Literal('active'), Type.Literal('blocked'), Type.Literal('not_provisioned')]),
      provider: Type.Union([Type.String(), Type.Null()]),
      messageCount: Type.Integer(),
    }),
  ),
});
