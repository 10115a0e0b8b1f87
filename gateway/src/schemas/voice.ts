import { Type, type Static } from '@sinclair/typebox';
import { AgentId, PhoneNumber } from './common.js';

const Mode = Type.Union([Type.Literal('relay'), Type.Literal('stream')], { description: 'relay: the provider does speech (ConversationRelay); stream: Switchboard does (Media Streams).' });

export const MakeCallBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    to: PhoneNumber,
    greeting: Type.Optional(Type.String({ maxLength: 2000 })),
    systemPrompt: Type.Optional(Type.String({ maxLength: 20000 })),
    voice: Type.Optional(Type.String({ maxLength: 100 })),
    language: Type.Optional(Type.String({ maxLength: 35 })),
    mode: Type.Optional(Mode),
    record: Type.Optional(
      Type.Boolean({ description: "Record this call, both legs in one WAV file (GET /api/v1/calls/{callId}/recording); absent: the agent's recordCalls, off by default. Announcing it is the agent's choice, in its greeting." }),
    ),
  },
  { additionalProperties: false },
);
export type MakeCallBody = Static<typeof MakeCallBody>;

const CallAnswer = {
  success: Type.Literal(true),
  callSid: Type.String(),
  status: Type.String(),
  from: Type.String(),
  to: Type.String(),
};

export const MakeCallResponse = Type.Object({ ...CallAnswer, sessionId: Type.String() });

export const CallOnBehalfBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    target: PhoneNumber,
    targetName: Type.Optional(Type.String({ maxLength: 200 })),
    requesterPhone: PhoneNumber,
    requesterName: Type.Optional(Type.String({ maxLength: 200 })),
    message: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type CallOnBehalfBody = Static<typeof CallOnBehalfBody>;

export const CallOnBehalfResponse = Type.Object({
  ...CallAnswer,
  sessionId: Type.String(),
  bridge: Type.Union([Type.Literal('available'), Type.Literal('unavailable')]),
});

export const SendVoiceMessageBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    to: PhoneNumber,
    text: Type.String({ minLength: 1, maxLength: 5000 }),
    voice: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type SendVoiceMessageBody = Static<typeof SendVoiceMessageBody>;

export const SendVoiceMessageResponse = Type.Object({
  ...CallAnswer,
  audioUrl: Type.String({ description: 'Unguessable public URL of the WAV file the call plays.' }),
  durationSeconds: Type.Number(),
});

export const TransferCallBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    callSid: Type.String({ minLength: 2, maxLength: 64 }),
    to: PhoneNumber,
    announcementText: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type TransferCallBody = Static<typeof TransferCallBody>;

export const TransferCallResponse = Type.Object({
  success: Type.Literal(true),
  callSid: Type.String(),
  transferredTo: Type.String(),
  status: Type.Literal('transferred'),
});
