import { Type, type Static } from '@sinclair/typebox';
import { Agent, AgentOnly, Channel, InboundWebhookSchema, ReconcileResponseSchema, WebhookAnswerSchema, entries } from './shapes.js';

/** Messages: sending, resuming and reconciling sends, inbound webhooks, dead letters. */

const IdempotencySlotSchema = Type.Object({ scope: Type.String(), key: Type.String(), requestHash: Type.String() });

/** A provider-approved WhatsApp template sent instead of a body: its Content SID, or its name (and language). */
const TemplateSchema = Type.Object({
  contentSid: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  language: Type.Optional(Type.String()),
  variables: Type.Optional(Type.Record(Type.String(), Type.String())),
});

const SendRequestSchema = Type.Object({
  /** With `to`; or, with `conversationId`, the channel to reply on (absent: the one last used). */
  channel: Type.Optional(Channel),
  to: Type.Optional(Type.String()),
  /** Instead of `to`: reply in this conversation, to its counterpart's address on the channel. */
  conversationId: Type.Optional(Type.String()),
  /** The text; or, on WhatsApp, a `template` instead. */
  body: Type.Optional(Type.String()),
  template: Type.Optional(TemplateSchema),
  subject: Type.Optional(Type.String()),
  html: Type.Optional(Type.String()),
  mediaUrls: Type.Optional(Type.Array(Type.String())),
  /** A marketing message: held to marketing consent and calling hours by the contact policy. */
  marketing: Type.Optional(Type.Boolean()),
  /** The gateway's Idempotency-Key slot: the answer is recorded in the commit that stores the provider's result. */
  idempotency: Type.Optional(IdempotencySlotSchema),
});

const SendResponseSchema = Type.Object({
  success: Type.Literal(true),
  messageId: Type.String(),
  externalId: Type.String(),
  status: Type.String(),
  channel: Channel,
  from: Type.String(),
  to: Type.String(),
  cost: Type.Number(),
  /** The provider that took it (the channel's own, or another it failed over to). */
  provider: Type.Optional(Type.String()),
});

/** A send another node started and may not have finished (its node died during the provider call). */
const ResumeSendRequestSchema = Type.Object({ ...Agent, messageId: Type.String() });

const ResumeSendResponseSchema = Type.Object({
  /** `in_flight`: the node holding the agent is still at it; `settled`: nothing was left to do. */
  outcome: Type.Union([Type.Literal('in_flight'), Type.Literal('settled'), Type.Literal('sent'), Type.Literal('adopted'), Type.Literal('failed')]),
});

export const MESSAGING_ENTRIES = entries({
  send: { request: Type.Composite([AgentOnly, SendRequestSchema]), answer: SendResponseSchema, mailbox: true, tenure: true },
  resumeSend: { request: ResumeSendRequestSchema, answer: ResumeSendResponseSchema, mailbox: true, tenure: true },
  reconcile: { request: Type.Object({ ...Agent, messageId: Type.String() }), answer: ReconcileResponseSchema, mailbox: true, tenure: true },
  /**
   * A provider's webhook with receipts the gateway's edge leaves to the agent's actor (one that came before
   * its send's outcome was committed, which the actor's recent sends wait for; one that suppresses an address;
   * a traced one the agent is told of), and every webhook from a gateway of a release before the edge: it
   * needs no mailbox turn of its own, and its writes carry no tenure.
   */
  inbound: { request: Type.Composite([AgentOnly, InboundWebhookSchema]), answer: WebhookAnswerSchema, mailbox: false, tenure: false },
  takeWaiting: {
    request: Type.Object({ ...Agent, channel: Type.Optional(Channel), limit: Type.Integer({ minimum: 1 }) }),
    answer: Type.Object({ messages: Type.Array(Type.Object({ id: Type.String(), channel: Channel, body: Type.String() })), count: Type.Integer() }),
    mailbox: true,
    tenure: false,
  },
});

export type SendRequest = Static<typeof SendRequestSchema>;
export type SendTemplate = Static<typeof TemplateSchema>;
export type SendResponse = Static<typeof SendResponseSchema>;
export type ResumeSendRequest = Static<typeof ResumeSendRequestSchema>;
