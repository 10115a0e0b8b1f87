import { Type, type Static } from '@sinclair/typebox';
import { Agent, AgentOnly, Channel, ConsentKind, Nullable, entries, perChannel } from './shapes.js';

/** The agent's lifecycle, settings, limits and callbacks. */

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
  /** The consent kinds the agent must find on record before it contacts a person. */
  requireConsent: Type.Optional(Type.Array(ConsentKind)),
  /** Put one-click unsubscribe headers (RFC 8058) on every email the agent sends. */
  listUnsubscribe: Type.Optional(Type.Boolean()),
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

export const AGENT_ENTRIES = entries({
  provision: { request: ProvisionRequestSchema, answer: ProvisionedSchema, mailbox: true, tenure: false, changesAgent: true },
  deprovision: { request: AgentOnly, answer: DeprovisionResultSchema, mailbox: true, tenure: false, changesAgent: true },
  get: { request: AgentOnly, answer: AgentViewSchema, mailbox: false, tenure: false },
  setBlockedChannels: {
    request: Type.Object({ ...Agent, blockedChannels: Type.Array(Channel) }),
    answer: Type.Object({ ok: Type.Literal(true), agentId: Type.String(), blockedChannels: Type.Array(Channel) }),
    mailbox: true,
    tenure: false,
    changesAgent: true,
  },
  getLimits: { request: AgentOnly, answer: LimitsViewSchema, mailbox: false, tenure: false },
  setLimits: {
    request: Type.Object({ ...Agent, overrides: Type.Partial(LimitsSchema), markupPercent: Nullable(Type.Number()) }),
    answer: LimitsViewSchema,
    mailbox: true,
    tenure: false,
  },
  setCallbackUrl: {
    request: Type.Object({ ...Agent, callbackUrl: Nullable(Type.String()) }),
    // The signing secret travels sealed with SECRET_KEY; the caller opens it (agent-client.ts).
    answer: Type.Object({ success: Type.Literal(true), agentId: Type.String(), callbackUrl: Nullable(Type.String()), sealedSigningSecret: Nullable(Type.String()) }),
    mailbox: true,
    tenure: false,
    changesAgent: true,
  },
  channelStatus: { request: AgentOnly, answer: Type.Object({ agentId: Type.String(), channels: perChannel(ChannelStatusSchema, 'every') }), mailbox: false, tenure: false },
  /** An operator's replay of the agent's callbacks: one event, or those created in [since, until). */
  replayCallbacks: {
    request: Type.Object({ ...Agent, eventId: Type.Optional(Type.String({ minLength: 1 })), since: Type.Optional(Type.String()), until: Type.Optional(Type.String()) }),
    answer: Type.Object({ agentId: Type.String(), replayed: Type.Integer(), eventIds: Type.Array(Type.String()) }),
    mailbox: true,
    tenure: false,
  },
});

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
export type ChannelStatus = Static<typeof ChannelStatusSchema>;
export type AgentView = Static<typeof AgentViewSchema>;
