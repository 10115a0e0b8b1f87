import { Type, type Static } from '@sinclair/typebox';
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

export const BlockedChannelsBody = Type.Object({ blockedChannels: Type.Array(ChannelName, { maxItems: 5 }) });
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
  agentId: Type.Union([AgentId, Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const PoolList = Type.Object({
  pools: Type.Record(Type.String(), Type.Object({ total: Type.Integer(), free: Type.Integer() })),
  entries: Type.Array(PoolEntry),
});

export const PoolAddBody = Type.Object({
  addresses: Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { minItems: 1, maxItems: 10000 }),
});
export type PoolAddBody = Static<typeof PoolAddBody>;

export const PoolAddResponse = Type.Object({ ok: Type.Literal(true), pool: PoolName, added: Type.Integer() });
