import { Type, type Static } from '@sinclair/typebox';
import { Agent, AgentOnly, Nullable, Ok, ReconcileResponseSchema, VoiceWebhookSchema, WebhookAnswerSchema, entries } from './shapes.js';

/** Calls: placing, transferring and ending them, the provider's call webhooks, what a call leaves. */

const CallPlacedSchema = Type.Object({
  success: Type.Literal(true),
  callSid: Type.String(),
  sessionId: Type.String(),
  status: Type.String(),
  from: Type.String(),
  to: Type.String(),
});

const MakeCallRequestSchema = Type.Object({
  to: Type.String(),
  greeting: Type.Optional(Type.String()),
  systemPrompt: Type.Optional(Type.String()),
  voice: Type.Optional(Type.String()),
  language: Type.Optional(Type.String()),
  mode: Type.Optional(Type.Union([Type.Literal('relay'), Type.Literal('stream')])),
  /** Record this call (both legs, one file); absent: the agent's `recordCalls`. */
  record: Type.Optional(Type.Boolean()),
  /** The agent's W3C trace context (REST `traceparent` header, MCP `_meta.traceparent`): the call's logs and webhooks carry it. */
  traceparent: Type.Optional(Type.String()),
});

/** What a call is for. */
export type CallPurpose =
  | { readonly kind: 'conversation' }
  | {
      /** A secretary call: ring the target, say who is calling and why, ask whether they take the call. */
      readonly kind: 'secretary';
      readonly targetName?: string;
      readonly requesterPhone: string;
      readonly requesterName?: string;
      readonly message?: string;
    }
  | { readonly kind: 'voice-message'; readonly audioUrl: string };

/** One line of a call's conversation. */
export interface CallLine {
  readonly role: 'caller' | 'agent';
  readonly text: string;
  readonly at: string;
}

/** A call session, as a gateway hands an actor what the call left for the agent. */
const CallSessionSchema = Type.Object({
  sessionId: Type.String(),
  agentId: Type.String(),
  callSid: Nullable(Type.String()),
  direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
  mode: Type.Union([Type.Literal('relay'), Type.Literal('stream')]),
  from: Type.String(),
  to: Type.String(),
  greeting: Nullable(Type.String()),
  systemPrompt: Nullable(Type.String()),
  voice: Nullable(Type.String()),
  language: Type.String(),
  purpose: Type.Unsafe<CallPurpose>(Type.Object({ kind: Type.Union([Type.Literal('conversation'), Type.Literal('secretary'), Type.Literal('voice-message')]) })),
  transcript: Type.Array(Type.Object({ role: Type.Union([Type.Literal('caller'), Type.Literal('agent')]), text: Type.String(), at: Type.String() })),
  startedAt: Type.Number(),
  ended: Type.Boolean(),
  record: Type.Optional(Type.Boolean()),
});

const VoiceHook = Type.Composite([AgentOnly, VoiceWebhookSchema]);

export const VOICE_ENTRIES = entries({
  sendVoiceMessage: {
    request: Type.Object({ ...Agent, to: Type.String(), text: Type.String(), voice: Type.Optional(Type.String()) }),
    answer: Type.Object({
      success: Type.Literal(true),
      callSid: Type.String(),
      status: Type.String(),
      from: Type.String(),
      to: Type.String(),
      audioUrl: Type.String(),
      durationSeconds: Type.Number(),
    }),
    mailbox: true,
    tenure: true,
  },
  makeCall: { request: Type.Composite([AgentOnly, MakeCallRequestSchema]), answer: CallPlacedSchema, mailbox: true, tenure: true },
  callOnBehalf: {
    request: Type.Object({
      ...Agent,
      target: Type.String(),
      targetName: Type.Optional(Type.String()),
      requesterPhone: Type.String(),
      requesterName: Type.Optional(Type.String()),
      message: Type.Optional(Type.String()),
      traceparent: Type.Optional(Type.String()),
    }),
    answer: Type.Composite([CallPlacedSchema, Type.Object({ bridge: Type.Literal('available') })]),
    mailbox: true,
    tenure: true,
  },
  transferCall: {
    request: Type.Object({ ...Agent, callSid: Type.String(), to: Type.String(), announcementText: Type.Optional(Type.String()) }),
    answer: Type.Object({ success: Type.Literal(true), callSid: Type.String(), transferredTo: Type.String(), status: Type.Literal('transferred') }),
    mailbox: true,
    tenure: false,
  },
  /** Ends a live call of the agent (an MCP task's cancellation); a call already over is CONFLICT. */
  hangUpCall: {
    request: Type.Object({ ...Agent, callSid: Type.String() }),
    answer: Type.Object({ success: Type.Literal(true), callSid: Type.String(), status: Type.Literal('hung-up') }),
    mailbox: true,
    tenure: false,
  },
  incomingCall: { request: VoiceHook, answer: WebhookAnswerSchema, mailbox: false, tenure: false },
  outboundAnswer: { request: VoiceHook, answer: WebhookAnswerSchema, mailbox: false, tenure: false },
  callStatus: { request: VoiceHook, answer: WebhookAnswerSchema, mailbox: false, tenure: false },
  /** A provider recording of the agent's call is ready (relay mode): fetched and stored. */
  callRecorded: { request: VoiceHook, answer: WebhookAnswerSchema, mailbox: false, tenure: false },
  callMessageTaken: { request: Type.Object({ ...Agent, session: CallSessionSchema, message: Type.String() }), answer: Ok, mailbox: false, tenure: false },
  reconcileCall: { request: Type.Object({ ...Agent, callSid: Type.String() }), answer: ReconcileResponseSchema, mailbox: true, tenure: true },
});

export type MakeCallRequest = Static<typeof MakeCallRequestSchema>;
