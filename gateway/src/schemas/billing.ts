import { Type, type Static } from '@sinclair/typebox';
import { AgentId } from './common.js';

export const PeriodName = Type.Union([Type.Literal('today'), Type.Literal('week'), Type.Literal('month'), Type.Literal('all')], {
  description: 'today (UTC), week (since Monday UTC), month (since the 1st UTC) or all.',
});

export const ReportQuery = Type.Object({ agentId: Type.Optional(AgentId), period: Type.Optional(PeriodName) }, { additionalProperties: false });
export type ReportQuery = Static<typeof ReportQuery>;

const Money = Type.Number({ description: 'USD, 4 places.' });
const ChannelUsage = Type.Object({ messages: Type.Integer(), calls: Type.Integer(), callSeconds: Type.Integer(), cost: Money });
const LimitFields = {
  actionsPerMinute: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  actionsPerHour: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  actionsPerDay: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  spendPerDay: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  spendPerMonth: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  callsPerDayToSameNumber: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
};
const LimitValues = Type.Object(LimitFields, { description: 'null means no limit.' });

export const UsageResponse = Type.Object({
  agentId: Type.Union([AgentId, Type.Null()], { description: 'null when summed over all agents.' }),
  period: PeriodName,
  totals: ChannelUsage,
  byChannel: Type.Record(Type.String(), ChannelUsage),
  limits: LimitValues,
  remaining: LimitValues,
  agents: Type.Optional(Type.Array(Type.Object({ agentId: AgentId, totals: ChannelUsage, byChannel: Type.Record(Type.String(), ChannelUsage) }))),
});

const ChannelBill = Type.Object({ count: Type.Integer(), providerCost: Money, billedCost: Money });
const Bill = {
  providerCost: Money,
  markupPercent: Type.Number(),
  billedCost: Money,
  byChannel: Type.Record(Type.String(), ChannelBill),
};

export const BillingResponse = Type.Object({
  agentId: Type.Union([AgentId, Type.Null()]),
  period: PeriodName,
  ...Bill,
  agents: Type.Optional(Type.Array(Type.Object({ agentId: AgentId, ...Bill }))),
});

export const LimitsBody = Type.Object(
  {
    limits: Type.Object(LimitFields, { description: 'null means no limit.', additionalProperties: false }),
    markupPercent: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1000 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type LimitsBody = Static<typeof LimitsBody>;

export const LimitsResponse = Type.Object({
  agentId: AgentId,
  limits: LimitValues,
  overrides: LimitValues,
  markupPercent: Type.Union([Type.Number(), Type.Null()], { description: "This agent's markup; null uses the global one." }),
});

export const MarkupBody = Type.Object({ markupPercent: Type.Number({ minimum: 0, maximum: 1000 }) }, { additionalProperties: false });
export type MarkupBody = Static<typeof MarkupBody>;
export const MarkupResponse = Type.Object({ markupPercent: Type.Number() });
