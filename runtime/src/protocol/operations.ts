import { Type, type Static, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import { CHANNELS, ErrorCodes, SwitchboardError } from '@switchboard/sdk';

/**
 * Every agent operation that crosses the bus: its name, the request it takes and the answer it gives.
 * The runtime checks each request against it before the operation runs, and the caller checks each
 * answer, so a process on the other side of NATS (another build, a rogue publisher) cannot hand an
 * actor a shape it does not expect. Requests carry the agent's id besides their own fields; fields a
 * schema does not name are allowed and ignored. The gateway validates HTTP bodies against the
 * contract's own schemas first; these are the internal shapes behind them.
 */
const Channel = Type.Union(CHANNELS.map((c) => Type.Literal(c)));
/** What an inbox entry tells the agent (store/repositories/inbox.ts). */
export const INBOX_ENTRY_TYPES = ['message.received', 'message.status', 'call.status', 'call.transcript', 'voicemail'] as const;
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** An object keyed by channel: each channel's entry optional, or required when `every` is set. */
function perChannel<T extends TSchema>(value: T): TObject<{ [C in (typeof CHANNELS)[number]]: TOptional<T> }>;
function perChannel<T extends TSchema>(value: T, every: 'every'): TObject<{ [C in (typeof CHANNELS)[number]]: T }>;
function perChannel<T extends TSchema>(value: T, every?: 'every'): TSchema {
  return Type.Object(Object.fromEntries(CHANNELS.map((c) => [c, every ? value : Type.Optional(value)])));
}
const Agent = { agentId: Type.String({ minLength: 1 }) };

/** A provider webhook, signature already checked by the gateway: the raw body travels base64-encoded. */
const Webhook = {
  method: Type.String(),
  url: Type.String(),
  headers: Type.Record(Type.String(), Type.String()),
  rawBodyBase64: Type.String(),
};

/** What the gateway answers a provider's webhook with. */
const WebhookAnswerSchema = Type.Object({
  status: Type.Integer(),
  contentType: Type.String(),
  body: Type.String(),
  /** Extra response headers (the refusal of a permanently bad event asks the sender to stop retrying). */
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
});

const InboundWebhookSchema = Type.Object({ ...Webhook, channel: Channel });
const VoiceWebhookSchema = Type.Object(Webhook);

const IdempotencySlotSchema = Type.Object({ scope: Type.String(), key: Type.String(), requestHash: Type.String() });

const SendRequestSchema = Type.Object({
  /** With `to`; or, with `conversationId`, the channel to reply on (absent: the one last used). */
  channel: Type.Optional(Channel),
  to: Type.Optional(Type.String()),
  /** Instead of `to`: reply in this conversation, to its counterpart's address on the channel. */
  conversationId: Type.Optional(Type.String()),
  body: Type.String(),
  subject: Type.Optional(Type.String()),
  html: Type.Optional(Type.String()),
  mediaUrls: Type.Optional(Type.Array(Type.String())),
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
});

/** A send another node started and may not have finished (its node died during the provider call). */
const ResumeSendRequestSchema = Type.Object({ ...Agent, messageId: Type.String() });

const ResumeSendResponseSchema = Type.Object({
  /** `in_flight`: the node holding the agent is still at it; `settled`: nothing was left to do. */
  outcome: Type.Union([Type.Literal('in_flight'), Type.Literal('settled'), Type.Literal('sent'), Type.Literal('adopted'), Type.Literal('failed')]),
});

const ReconcileRequestSchema = Type.Object({ ...Agent, messageId: Type.String() });

const ReconcileResponseSchema = Type.Object({
  /**
   * `settled`: it had a final status already; `final`: the provider's answer was one; `pending`: the
   * provider had none yet (asked again later); `unknown`: recorded at the bound.
   */
  outcome: Type.Union([Type.Literal('settled'), Type.Literal('final'), Type.Literal('pending'), Type.Literal('unknown')]),
  status: Type.String(),
});

const ProvisionRequestSchema = Type.Object({
  ...Agent,
  displayName: Type.String(),
  channels: Type.Array(Channel),
  country: Type.Optional(Type.String()),
  emailDomain: Type.Optional(Type.String()),
  greeting: Type.Optional(Type.String()),
  systemPrompt: Type.Optional(Type.String()),
  voice: Type.Optional(Type.String()),
  language: Type.Optional(Type.String()),
  /** Record the agent's calls unless a call says otherwise. */
  recordCalls: Type.Optional(Type.Boolean()),
  callbackUrl: Type.Optional(Type.String()),
  /**
   * The caller mints the agent's client token and sends only its hash (secrets.ts `hashToken`), and
   * seals the callback signing secret with the cluster's SECRET_KEY: neither crosses the bus in clear.
   */
  tokenHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  /** Required with a callbackUrl. */
  sealedSigningSecret: Type.Optional(Type.String()),
});

/** What the actor answers: the caller adds the token and secret it minted ({@link ProvisionResult}). */
const ProvisionedSchema = Type.Object({
  success: Type.Literal(true),
  agentId: Type.String(),
  channels: perChannel(Type.Object({ address: Type.String(), status: Type.Literal('active') })),
});

const ProvisionResultSchema = Type.Object({
  success: Type.Literal(true),
  agentId: Type.String(),
  securityToken: Type.String(),
  channels: perChannel(Type.Object({ address: Type.String(), status: Type.Literal('active') })),
  /** Present when a callback URL was given: the secret callbacks are signed with. */
  signingSecret: Type.Optional(Type.String()),
});

const DeprovisionResultSchema = Type.Object({
  success: Type.Literal(true),
  agentId: Type.String(),
  status: Type.Literal('deprovisioned'),
  released: perChannel(Type.String()),
});

const AgentViewSchema = Type.Object({
  agentId: Type.String(),
  displayName: Type.String(),
  status: Type.String(),
  channels: perChannel(Type.String()),
  blockedChannels: Type.Array(Channel),
  callbackUrl: Nullable(Type.String()),
  createdAt: Type.String(),
});

/** The per-agent limits, by name (limits/limits.ts holds their defaults and how they combine). */
export const LIMIT_NAMES = ['actionsPerMinute', 'actionsPerHour', 'actionsPerDay', 'spendPerDay', 'spendPerMonth', 'callsPerDayToSameNumber'] as const;

const LimitValue = Nullable(Type.Number());
const LimitsSchema = Type.Object(Object.fromEntries(LIMIT_NAMES.map((name) => [name, LimitValue])) as { [K in (typeof LIMIT_NAMES)[number]]: typeof LimitValue });

const LimitsViewSchema = Type.Object({
  agentId: Type.String(),
  limits: LimitsSchema,
  overrides: Type.Partial(LimitsSchema),
  markupPercent: Nullable(Type.Number()),
});

const ChannelStatusSchema = Type.Object({
  address: Nullable(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('blocked'), Type.Literal('not_provisioned')]),
  provider: Nullable(Type.String()),
  messageCount: Type.Integer(),
});

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

const ConversationListSchema = Type.Object({ agentId: Type.String(), conversations: Type.Array(ConversationSummarySchema), nextCursor: Nullable(Type.String()) });
const ConversationSchema = Type.Object({
  agentId: Type.String(),
  conversationId: Type.String(),
  counterparts: Type.Array(CounterpartSchema),
  linkedAddresses: Type.Array(Type.String()),
  items: Type.Array(TimelineItemSchema),
  nextCursor: Nullable(Type.String()),
});
const Page = { limit: Type.Integer({ minimum: 1 }), cursor: Type.Optional(Type.String()) };

const operation = <Q extends TSchema, A extends TSchema>(request: Q, response: A) => ({ request, response });
const Ok = Type.Object({ success: Type.Literal(true) });
const AgentOnly = Type.Object(Agent);

export const AGENT_OPERATIONS = {
  provision: operation(ProvisionRequestSchema, ProvisionedSchema),
  deprovision: operation(AgentOnly, DeprovisionResultSchema),
  get: operation(AgentOnly, AgentViewSchema),
  setBlockedChannels: operation(
    Type.Object({ ...Agent, blockedChannels: Type.Array(Channel) }),
    Type.Object({ ok: Type.Literal(true), agentId: Type.String(), blockedChannels: Type.Array(Channel) }),
  ),
  getLimits: operation(AgentOnly, LimitsViewSchema),
  setLimits: operation(Type.Object({ ...Agent, overrides: Type.Partial(LimitsSchema), markupPercent: Nullable(Type.Number()) }), LimitsViewSchema),
  send: operation(Type.Composite([AgentOnly, SendRequestSchema]), SendResponseSchema),
  resumeSend: operation(ResumeSendRequestSchema, ResumeSendResponseSchema),
  reconcile: operation(ReconcileRequestSchema, ReconcileResponseSchema),
  reconcileCall: operation(Type.Object({ ...Agent, callSid: Type.String() }), ReconcileResponseSchema),
  inbound: operation(Type.Composite([AgentOnly, InboundWebhookSchema]), WebhookAnswerSchema),
  setCallbackUrl: operation(
    Type.Object({ ...Agent, callbackUrl: Nullable(Type.String()) }),
    // The signing secret travels sealed with SECRET_KEY; the caller opens it (agent-client.ts).
    Type.Object({ success: Type.Literal(true), agentId: Type.String(), callbackUrl: Nullable(Type.String()), sealedSigningSecret: Nullable(Type.String()) }),
  ),
  takeWaiting: operation(
    Type.Object({ ...Agent, channel: Type.Optional(Channel), limit: Type.Integer({ minimum: 1 }) }),
    Type.Object({ messages: Type.Array(Type.Object({ id: Type.String(), channel: Channel, body: Type.String() })), count: Type.Integer() }),
  ),
  channelStatus: operation(AgentOnly, Type.Object({ agentId: Type.String(), channels: perChannel(ChannelStatusSchema, 'every') })),
  sendVoiceMessage: operation(
    Type.Object({ ...Agent, to: Type.String(), text: Type.String(), voice: Type.Optional(Type.String()) }),
    Type.Object({
      success: Type.Literal(true),
      callSid: Type.String(),
      status: Type.String(),
      from: Type.String(),
      to: Type.String(),
      audioUrl: Type.String(),
      durationSeconds: Type.Number(),
    }),
  ),
  makeCall: operation(Type.Composite([AgentOnly, MakeCallRequestSchema]), CallPlacedSchema),
  callOnBehalf: operation(
    Type.Object({
      ...Agent,
      target: Type.String(),
      targetName: Type.Optional(Type.String()),
      requesterPhone: Type.String(),
      requesterName: Type.Optional(Type.String()),
      message: Type.Optional(Type.String()),
      traceparent: Type.Optional(Type.String()),
    }),
    Type.Composite([CallPlacedSchema, Type.Object({ bridge: Type.Literal('available') })]),
  ),
  transferCall: operation(
    Type.Object({ ...Agent, callSid: Type.String(), to: Type.String(), announcementText: Type.Optional(Type.String()) }),
    Type.Object({ success: Type.Literal(true), callSid: Type.String(), transferredTo: Type.String(), status: Type.Literal('transferred') }),
  ),
  /** Ends a live call of the agent (an MCP task's cancellation); a call already over is CONFLICT. */
  hangUpCall: operation(Type.Object({ ...Agent, callSid: Type.String() }), Type.Object({ success: Type.Literal(true), callSid: Type.String(), status: Type.Literal('hung-up') })),
  incomingCall: operation(Type.Composite([AgentOnly, VoiceWebhookSchema]), WebhookAnswerSchema),
  outboundAnswer: operation(Type.Composite([AgentOnly, VoiceWebhookSchema]), WebhookAnswerSchema),
  callStatus: operation(Type.Composite([AgentOnly, VoiceWebhookSchema]), WebhookAnswerSchema),
  /** A provider recording of the agent's call is ready (relay mode): fetched and stored. */
  callRecorded: operation(Type.Composite([AgentOnly, VoiceWebhookSchema]), WebhookAnswerSchema),
  callMessageTaken: operation(Type.Object({ ...Agent, session: CallSessionSchema, message: Type.String() }), Ok),
  inboxRead: operation(InboxReadRequestSchema, InboxReadSchema),
  inboxAck: operation(Type.Object({ ...Agent, upTo: Type.Integer({ minimum: 0 }) }), InboxAckSchema),
  conversations: operation(Type.Object({ ...Agent, ...Page }), ConversationListSchema),
  conversation: operation(Type.Object({ ...Agent, ...Page, conversationId: Type.String() }), ConversationSchema),
  linkContacts: operation(
    Type.Object({ ...Agent, addresses: Type.Array(Type.String(), { minItems: 2 }) }),
    Type.Object({ agentId: Type.String(), conversationId: Type.String(), linkedAddresses: Type.Array(Type.String()) }),
  ),
  /** An operator's replay of the agent's callbacks: one event, or those created in [since, until). */
  replayCallbacks: operation(
    Type.Object({ ...Agent, eventId: Type.Optional(Type.String({ minLength: 1 })), since: Type.Optional(Type.String()), until: Type.Optional(Type.String()) }),
    Type.Object({ agentId: Type.String(), replayed: Type.Integer(), eventIds: Type.Array(Type.String()) }),
  ),
};

/** The name of an agent operation. */
export type OperationName = keyof typeof AGENT_OPERATIONS;
/** What operation `K` takes, with the agent's id. */
export type OperationRequest<K extends OperationName> = Static<(typeof AGENT_OPERATIONS)[K]['request']>;
/** What operation `K` takes, without the agent's id (the client adds it). */
export type OperationInput<K extends OperationName> = Omit<OperationRequest<K>, 'agentId'>;
/** What operation `K` answers. */
export type OperationResponse<K extends OperationName> = Static<(typeof AGENT_OPERATIONS)[K]['response']>;

export type InboundWebhook = Static<typeof InboundWebhookSchema>;
export type VoiceWebhook = Static<typeof VoiceWebhookSchema>;
export type WebhookAnswer = Static<typeof WebhookAnswerSchema>;
export type SendRequest = Static<typeof SendRequestSchema>;
export type SendResponse = Static<typeof SendResponseSchema>;
export type ResumeSendRequest = Static<typeof ResumeSendRequestSchema>;
export type ProvisionRequest = Static<typeof ProvisionRequestSchema>;
/** What a provision gives its caller: the actor's answer with the token and secret the caller minted. */
export type ProvisionResult = Static<typeof ProvisionResultSchema>;
/** What setCallbackUrl gives its caller, the secret opened. */
export interface CallbackUrlResult {
  success: true;
  agentId: string;
  callbackUrl: string | null;
  signingSecret: string | null;
}
export type DeprovisionResult = Static<typeof DeprovisionResultSchema>;
export type MakeCallRequest = Static<typeof MakeCallRequestSchema>;
export type ChannelStatus = Static<typeof ChannelStatusSchema>;
export type AgentView = Static<typeof AgentViewSchema>;
export type InboxRead = Static<typeof InboxReadSchema>;

// Requests and answers are checked as they are, never coerced or stripped: the shapes are internal.
const ajv = new Ajv({ strict: false, allErrors: false });
const compiled = new Map<string, { request: ValidateFunction; response: ValidateFunction }>();

function checksOf(name: OperationName) {
  let checks = compiled.get(name);
  if (!checks) {
    const { request, response } = AGENT_OPERATIONS[name];
    checks = { request: ajv.compile(request), response: ajv.compile(response) };
    compiled.set(name, checks);
  }
  return checks;
}

/** True when `name` is an operation of the catalogue. */
export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(AGENT_OPERATIONS, name);
}

/** The request as operation `name` takes it, or BAD_REQUEST naming what is wrong (it was not acted on). */
export function checkRequest<K extends OperationName>(name: K, payload: unknown): OperationRequest<K> {
  const validate = checksOf(name).request;
  if (validate(payload)) return payload as OperationRequest<K>;
  throw new SwitchboardError(ErrorCodes.BAD_REQUEST, `Agent operation ${name} refused its request: ${ajv.errorsText(validate.errors, { dataVar: 'request' })}.`);
}

/** The answer as operation `name` gives it, or INTERNAL: the node that answered does not speak this catalogue. */
export function checkResponse<K extends OperationName>(name: K, answer: unknown): OperationResponse<K> {
  const validate = checksOf(name).response;
  if (validate(answer)) return answer as OperationResponse<K>;
  throw new SwitchboardError(ErrorCodes.INTERNAL, `Agent operation ${name} answered an unexpected shape: ${ajv.errorsText(validate.errors, { dataVar: 'answer' })}.`);
}
