import { Type, type Static } from '@sinclair/typebox';
import { AgentId } from './common.js';

const Ms = Type.Number({ minimum: 0, description: 'Milliseconds (0.1 ms).' });
const MaybeMs = Type.Union([Ms, Type.Null()]);
const Direction = Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]);
const CallStatus = Type.Union(
  ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled', 'unknown'].map((s) => Type.Literal(s)),
  { description: "The provider's call status; `unknown` when no final one came from the provider within RECONCILE_BOUND_MS." },
);

export const CallListQuery = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    status: Type.Optional(CallStatus),
    direction: Type.Optional(Direction),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Calls created at or after this time (ISO 8601).' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Calls created before this time (ISO 8601).' })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'The nextCursor of the page before.' })),
  },
  { additionalProperties: false },
);
export type CallListQuery = Static<typeof CallListQuery>;

export const CallQuery = Type.Object({ agentId: Type.Optional(AgentId) }, { additionalProperties: false });
export type CallQuery = Static<typeof CallQuery>;

/** A call id: the provider's call sid or Switchboard's session id. */
export const CallId = Type.String({ pattern: '^[A-Za-z0-9_:-]{1,100}$', description: "The callSid (Twilio's CA…, Telnyx's call_control_id v3:…), or the sessionId make-call returned." });

export const CallSummary = Type.Object(
  {
    durationSeconds: Type.Integer({ minimum: 0 }),
    turns: Type.Integer({ minimum: 0, description: 'Caller turns (the greeting is not one).' }),
    turnLatencyMs: Type.Union([Type.Object({ p50: Ms, p95: Ms }), Type.Null()], { description: "From the caller's end of speech to the reply's first frame." }),
    switchboardAddedMs: Type.Union([Type.Object({ p95: Ms }), Type.Null()], { description: 'What Switchboard added to a turn: everything that is not provider or agent time.' }),
  },
  { description: 'Null until the media connection wrote the ledger (when the call ends).' },
);

const LedgerTurn = Type.Object({
  turn: Type.Integer({ minimum: 0, description: '0 is the greeting.' }),
  at: Type.String({ description: 'When the turn started: the caller stopped speaking (stream: our endpointing decided; relay: the prompt arrived); the greeting: the media stream started.' }),
  endpointingMs: Type.Union([Ms, Type.Null()], { description: 'Stream: silence endpointing waited for before it decided.' }),
  stamps: Type.Object(
    {
      transcriptReady: MaybeMs,
      agentAsked: MaybeMs,
      replyBegan: MaybeMs,
      replyEnded: MaybeMs,
      ttsAsked: MaybeMs,
      ttsFirstAudio: MaybeMs,
      firstFrameSent: MaybeMs,
    },
    { description: 'ms after `at`; null where the turn had no such step.' },
  ),
  components: Type.Object({ transcriptionMs: MaybeMs, agentMs: MaybeMs, ttsMs: MaybeMs, switchboardMs: MaybeMs }),
  latencyMs: Type.Union([Ms, Type.Null()], { description: "From `at` to the reply's first frame (relay: its text)." }),
  unanswered: Type.Union([Type.Literal('call-ended'), Type.Literal('no-reply'), Type.Literal('failed'), Type.Literal('not-transcribed'), Type.Null()], {
    description:
      "Null when the turn was answered; else why not: the call ended before the reply's first frame (relay: its text) left, the agent's reply had nothing to say, saying it failed, or (stream) speech-to-text gave no words for what our endpointing heard.",
  }),
  bargeIns: Type.Array(Type.Object({ atMs: Type.Number(), stopMs: Type.Union([Ms, Type.Null()], { description: 'How long the reply took to stop; null when the provider stopped it (relay).' }) })),
});

const CallFields = {
  callId: Type.String(),
  callSid: Type.String(),
  sessionId: Type.String(),
  agentId: AgentId,
  direction: Direction,
  mode: Type.Union([Type.Literal('relay'), Type.Literal('stream')]),
  status: Type.String(),
  from: Type.String(),
  to: Type.String(),
  createdAt: Type.String(),
  connectedAt: Type.Union([Type.String(), Type.Null()]),
  endedAt: Type.Union([Type.String(), Type.Null()]),
  durationSeconds: Type.Integer({ minimum: 0 }),
  cost: Type.Union([Type.Number(), Type.Null()], { description: 'Provider cost, USD.' }),
  summary: Type.Union([CallSummary, Type.Null()]),
  traceparent: Type.Union([Type.String(), Type.Null()], { description: "The W3C trace context the agent placed the call with (its `traceparent` header or MCP `_meta`); the call's webhooks carry it too." }),
  recording: Type.Union(
    [
      Type.Object({
        url: Type.String({ description: 'GET it with the agent\'s token (or the operator\'s): a WAV file, both legs.' }),
        durationSeconds: Type.Number({ minimum: 0 }),
        recordedAt: Type.String(),
      }),
      Type.Null(),
    ],
    { description: 'The call\'s recording, when the call was recorded (make-call `record`, or the agent\'s `recordCalls`) and is still kept (RECORDING_RETENTION_DAYS); null otherwise. Appears once the call has ended and the recording was stored.' },
  ),
};

export const CallListResponse = Type.Object({ calls: Type.Array(Type.Object(CallFields)), nextCursor: Type.Union([Type.String(), Type.Null()]) });

export const CallResponse = Type.Object({
  ...CallFields,
  ledger: Type.Union([
    Type.Object({
      greeting: Type.Union([LedgerTurn, Type.Null()]),
      turns: Type.Array(LedgerTurn),
      recordingAnnouncement: Type.Optional(
        Type.String({ description: "The announcement a recorded call opened with because the other party's place asks every party's consent to record (RECORDING_ANNOUNCEMENTS); absent when none was said." }),
      ),
    }),
    Type.Null(),
  ]),
  transcript: Type.Array(
    Type.Object({ turn: Type.Integer({ minimum: 0 }), role: Type.Union([Type.Literal('caller'), Type.Literal('agent')]), text: Type.String(), at: Type.String(), interrupted: Type.Boolean() }),
  ),
});
