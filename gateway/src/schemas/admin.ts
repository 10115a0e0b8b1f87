import { Type, type Static } from '@sinclair/typebox';
import { CHANNELS, MESSAGE_CHANNELS } from '@switchboard/sdk';
import { AgentId, ChannelName } from './common.js';

export const PoolName = Type.Union([Type.Literal('phone'), Type.Literal('whatsapp'), Type.Literal('line'), Type.Literal('email')]);

export const AgentSummary = Type.Object({
  agentId: AgentId,
  displayName: Type.String(),
  status: Type.String(),
  channels: Type.Record(Type.String(), Type.String()),
  blockedChannels: Type.Array(ChannelName),
  createdAt: Type.String({ format: 'date-time' }),
});

export const AgentList = Type.Object({ agents: Type.Array(AgentSummary) });

export const BlockedChannelsBody = Type.Object({ blockedChannels: Type.Array(ChannelName, { maxItems: CHANNELS.length }) }, { additionalProperties: false });
export type BlockedChannelsBody = Static<typeof BlockedChannelsBody>;

export const BlockedChannelsResponse = Type.Object({
  ok: Type.Literal(true),
  agentId: AgentId,
  blockedChannels: Type.Array(ChannelName),
});

export const TokenResponse = Type.Object({ token: Type.String() });

export const PoolEntry = Type.Object({
  pool: PoolName,
  address: Type.String(),
  provider: Type.Optional(Type.String({ description: "The provider the address is held at when it is not the channel's own: a sender for sends that fail over there." })),
  agentId: Type.Union([AgentId, Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const PoolList = Type.Object({
  pools: Type.Record(Type.String(), Type.Object({ total: Type.Integer(), free: Type.Integer() })),
  entries: Type.Array(PoolEntry),
});

export const PoolAddBody = Type.Object(
  { addresses: Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { minItems: 1, maxItems: 10000 }) },
  { additionalProperties: false },
);
export type PoolAddBody = Static<typeof PoolAddBody>;

export const PoolAddResponse = Type.Object({ ok: Type.Literal(true), pool: PoolName, added: Type.Integer() });

/** A live probe of a provider or a credential test: whether it worked and what to do if not. */
export const CheckResult = Type.Object({ ok: Type.Boolean(), message: Type.String() });

const ProviderStatus = Type.Object({
  configured: Type.Boolean(),
  provider: Type.Union([Type.String(), Type.Null()]),
  check: Type.Union([CheckResult, Type.Null()]),
});

/** One deploy through the admin API: when, and how it ended. */
export const DeployRecord = Type.Object({
  startedAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Null while under way.' }),
  outcome: Type.Union([Type.Literal('deploying'), Type.Literal('deployed'), Type.Literal('failed')], {
    description: '`deployed`: the saved settings serve; `failed`: the previous settings serve again and the env file holds them.',
  }),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  envFileRestored: Type.Boolean({ description: 'True when the failure put the env file back as it was when the serving settings were loaded.' }),
});

export const AdminStatus = Type.Object({
  version: Type.String(),
  demoMode: Type.Boolean(),
  publicBaseUrl: Type.String(),
  envFile: Type.Union([Type.String(), Type.Null()]),
  providers: Type.Object({ telephony: ProviderStatus, email: ProviderStatus, tts: ProviderStatus, stt: ProviderStatus, chat: ProviderStatus }),
  webhooks: Type.Record(Type.String(), Type.String(), { description: 'URLs to paste into each provider console.' }),
  settings: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
    description: 'Current non-secret settings; a secret shows only whether it is set (true/false).',
  }),
  lastDeploy: Type.Union([DeployRecord, Type.Null()], { description: 'The last deploy through the admin API and its outcome; null before the first (or when not started from an env file).' }),
  simulator: Type.Union([Type.Object({ url: Type.String() }), Type.Null()], {
    description: 'Demo mode: where the in-process provider simulator listens (it keeps its port across deploys when it can); null otherwise.',
  }),
});

/** Demo mode's simulator credentials: what the wizard's credential tests accept. */
export const DemoCredentials = Type.Object({
  url: Type.String(),
  twilio: Type.Object({ accountSid: Type.String(), authToken: Type.String() }),
  resend: Type.Object({ apiKey: Type.String() }),
  elevenlabs: Type.Object({ apiKey: Type.String() }),
});

const Totals = Type.Object({ actions: Type.Number(), cost: Type.Number() });

export const AdminDashboard = Type.Object({
  agents: Type.Object({ total: Type.Integer(), active: Type.Integer() }),
  usage: Type.Object({ today: Totals, month: Totals }),
  deadLetters: Type.Object({ pending: Type.Integer() }),
  calls: Type.Object({ active: Type.Integer() }),
  alerts: Type.Array(Type.Object({ level: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]), message: Type.String(), at: Type.String() })),
  pools: Type.Record(Type.String(), Type.Object({ total: Type.Integer(), free: Type.Integer() })),
  series: Type.Object({
    days: Type.Array(Type.Object({ date: Type.String(), actions: Type.Number(), cost: Type.Number() }), { description: 'Last 14 UTC days.' }),
    channelsToday: Type.Record(Type.String(), Totals),
    messagesToday: Type.Object({ inbound: Type.Integer(), outbound: Type.Integer() }),
  }),
  refusals: Type.Object({
    today: Type.Record(Type.String(), Type.Integer(), { description: 'Messages and calls the contact policy refused today (UTC), by refusal code (GET /admin/api/refusals lists them).' }),
  }),
});

export const TwilioTestBody = Type.Object(
  { accountSid: Type.String({ maxLength: 64 }), authToken: Type.String({ maxLength: 256 }) },
  { additionalProperties: false },
);
export type TwilioTestBody = Static<typeof TwilioTestBody>;

export const ApiKeyTestBody = Type.Object({ apiKey: Type.String({ maxLength: 512 }) }, { additionalProperties: false });
export type ApiKeyTestBody = Static<typeof ApiKeyTestBody>;

export const SaveBody = Type.Object(
  {
    settings: Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 65536 }), Type.Number(), Type.Boolean()]), {
      description: 'Setting names (see docs/configuration.md) and their new values; an empty string clears a setting.',
    }),
  },
  { additionalProperties: false },
);
export type SaveBody = Static<typeof SaveBody>;

export const SaveResponse = Type.Object({ ok: Type.Literal(true), saved: Type.Array(Type.String()), envFile: Type.String() });

export const DeployResponse = Type.Object({
  ok: Type.Literal(true),
  message: Type.String(),
  deploy: DeployRecord,
});

export const AgentDetail = Type.Object({
  agent: Type.Intersect([AgentSummary, Type.Object({ callbackUrl: Type.Union([Type.String(), Type.Null()]) })]),
  limits: Type.Record(Type.String(), Type.Number()),
  usage: Type.Object({ today: Totals, month: Totals }),
  messages: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  calls: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  deadLetters: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});

export const ListFilter = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    channel: Type.Optional(ChannelName),
    direction: Type.Optional(Type.Union([Type.Literal('inbound'), Type.Literal('outbound')])),
    status: Type.Optional(Type.String({ maxLength: 32, pattern: '^[a-z_]+$' })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  },
  { additionalProperties: false },
);
export type ListFilter = Static<typeof ListFilter>;

export const MessageLog = Type.Object({ messages: Type.Array(Type.Record(Type.String(), Type.Unknown())) });
export const DeadLetterList = Type.Object({ deadLetters: Type.Array(Type.Record(Type.String(), Type.Unknown())) });

export const CallbackLogQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ pattern: '^cba_[0-9A-Z]{26}$', description: 'The `nextCursor` of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Attempts per page (100 when absent).' })),
  },
  { additionalProperties: false },
);
export type CallbackLogQuery = Static<typeof CallbackLogQuery>;

const Timestamp = Type.String({ format: 'date-time' });

export const CallbackAttempt = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  eventType: Type.Union([Type.String(), Type.Null()], { description: 'The event posted: message.received, message.status, call.status…; null once the event was swept.' }),
  agentId: AgentId,
  url: Type.String(),
  attempt: Type.Integer({ description: 'The attempt of its round (a replay starts a new round).' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status answered; null when no answer came.' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why no answer came (network error, time-out).' }),
  latencyMs: Type.Integer(),
  responseExcerpt: Type.Union([Type.String(), Type.Null()], { description: 'The first 512 bytes of the answer.' }),
  outcome: Type.Union([Type.Literal('delivered'), Type.Literal('retrying'), Type.Literal('failed'), Type.Literal('refused')]),
  createdAt: Timestamp,
});

export const CallbackEndpoint = Type.Object({
  agentId: AgentId,
  url: Type.String(),
  failingSince: Type.Union([Timestamp, Type.Null()], { description: 'The first failure since the last success.' }),
  disabledAt: Type.Union([Timestamp, Type.Null()], { description: 'When the endpoint was disabled; null while enabled.' }),
});

export const CallbackLog = Type.Object({
  agentId: AgentId,
  attempts: Type.Array(CallbackAttempt),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
  endpoint: Type.Union([CallbackEndpoint, Type.Null()]),
});

export const CallbackReplayBody = Type.Object(
  {
    eventId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'One event, by the id of its log rows (and its webhook-id).' })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'With until: every event of the agent first posted in [since, until).' })),
    until: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, description: 'Either eventId, or since and until.' },
);
export type CallbackReplayBody = Static<typeof CallbackReplayBody>;

export const CallbackReplayResponse = Type.Object({ agentId: AgentId, replayed: Type.Integer(), eventIds: Type.Array(Type.String()) });

export const SignInBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false });
export type SignInBody = Static<typeof SignInBody>;

export const SessionState = Type.Object({
  signedIn: Type.Boolean(),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  csrfToken: Type.Optional(Type.String({ description: 'Send it as X-CSRF-Token on state-changing admin requests made with the session cookie.' })),
});

const MessageChannelName = Type.Union([Type.Literal('sms'), Type.Literal('whatsapp'), Type.Literal('email'), Type.Literal('line')]);
const Moment = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

/** One provider of a message channel, as the gateway has heard of its sends since it started. */
export const ProviderHealth = Type.Object({
  provider: Type.String(),
  circuit: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half-open')], {
    description: 'Its circuit as last reported by any process sending there: open means sends skip it (they go to the next provider) until a probe succeeds.',
  }),
  lastSuccessAt: Moment,
  lastFailureAt: Moment,
  recentErrorRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'The share of refused and ambiguous attempts among its last 100; null before the first.' }),
  attempts: Type.Object(
    { accepted: Type.Integer(), refused: Type.Integer(), ambiguous: Type.Integer() },
    { description: 'Send attempts since the gateway started: refused ones provably did not reach it (a send fails over), ambiguous ones timed out (settled there, never failed over).' },
  ),
});

export const ProviderChannel = Type.Object({
  channel: MessageChannelName,
  providers: Type.Array(ProviderHealth, { description: 'In routing order (`<CHANNEL>_DRIVER`): the channel\u2019s own first.' }),
  routes: Type.Array(Type.Object({ prefix: Type.String(), providers: Type.Array(Type.String()) }), {
    description: 'Destination prefixes with their own provider order (SMS_ROUTES), as written; the longest matching prefix wins.',
  }),
  available: Type.Array(Type.String(), {
    description: 'Loaded providers that offer the channel but are not in its order: sends never go to them until the order names them.',
  }),
  saved: Type.Optional(
    Type.Object(
      { providers: Type.Array(Type.String()), routes: Type.Array(Type.Object({ prefix: Type.String(), providers: Type.Array(Type.String()) })) },
      { description: 'Present when the env file holds another order or other routes than those serving: saved, and serving after the next deploy.' },
    ),
  ),
});

const ProviderName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'A provider as the board names it (`twilio`, `telnyx`).' });
const PrefixRoute = Type.Object(
  {
    prefix: Type.String({ maxLength: 16, description: 'An E.164 prefix: `+` and 1 to 6 digits (`+44`, `+1415`).' }),
    providers: Type.Array(ProviderName, { maxItems: 16, description: 'The providers a destination with this prefix goes to, in order.' }),
  },
  { additionalProperties: false },
);

/** The operator's routing: each channel given, its providers in order, and for SMS its prefix routes. */
export const ProviderRoutingBody = Type.Object(
  {
    channels: Type.Array(
      Type.Object(
        {
          channel: MessageChannelName,
          providers: Type.Array(ProviderName, { maxItems: 16, description: 'Loaded providers of the channel, in routing order; the first is the channel\u2019s own (`<CHANNEL>_DRIVER`).' }),
          routes: Type.Optional(
            Type.Array(PrefixRoute, { maxItems: 256, description: 'SMS only (SMS_ROUTES): replaces the prefix routes; an empty list removes them; left out, they stay as they are.' }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MESSAGE_CHANNELS.length },
    ),
  },
  { additionalProperties: false },
);
export type ProviderRoutingBody = Static<typeof ProviderRoutingBody>;

export const ProviderRoutingResponse = Type.Object({
  ok: Type.Literal(true),
  saved: Type.Array(Type.String(), { description: 'The settings written (`SMS_DRIVER`, `SMS_ROUTES`...).' }),
  envFile: Type.String(),
  appliesOn: Type.Literal('deploy', { description: 'Saved settings serve after the next deploy (POST /admin/api/deploy), as every saved setting.' }),
});

export const ProviderBoardResponse = Type.Object({
  since: Type.String({ format: 'date-time', description: 'When this gateway started counting.' }),
  channels: Type.Array(ProviderChannel, { description: 'Each message channel with at least one provider.' }),
});

/** One channel's table entry (the SDK's CHANNEL_SPECS), as the admin UI reads it. */
export const ChannelSpecView = Type.Object({
  channel: ChannelName,
  label: Type.String({ description: 'How the admin UI names it: `SMS`, `WhatsApp`.' }),
  sends: Type.Boolean({ description: 'Whether agents send messages on it (voice places calls instead).' }),
  address: Type.Object({
    kind: Type.Union([Type.Literal('e164'), Type.Literal('email'), Type.Literal('line-user')]),
    pattern: Type.String({ description: 'The regular expression a recipient on the channel must match.' }),
    what: Type.String({ description: 'The address in words: `an email address`.' }),
  }),
  pool: Type.Object({
    name: PoolName,
    setting: Type.Optional(Type.String({ description: 'The setting that fills the pool (`POOL_PHONE_NUMBERS`); absent for email, whose addresses are made per agent under EMAIL_DOMAIN.' })),
    label: Type.Optional(Type.String({ description: 'How the setup wizard names that setting.' })),
  }),
  driverSetting: Type.String({ description: 'The setting that chooses its providers (`SMS_DRIVER`).' }),
  failover: Type.Boolean({ description: 'Whether that setting may list several providers in order, sends failing over.' }),
  routesSetting: Type.Optional(Type.String({ description: 'Its destination-prefix routes setting (`SMS_ROUTES`), when it has one.' })),
  webhook: Type.Object({
    path: Type.String({ description: 'The segment after `/webhooks/{agentId}/`.' }),
    contentTypes: Type.Array(Type.String(), { description: 'The media types taken from a driver that declares none.' }),
  }),
});

export const ChannelList = Type.Object({ channels: Type.Array(ChannelSpecView, { description: 'Every channel, in CHANNELS order.' }) });
