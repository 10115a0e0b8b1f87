import { ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';
import type { SqlValue } from '../store/database.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { CallRecord } from '../store/repositories/calls.js';
import type { IdempotentResponse } from '../store/repositories/idempotency.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { PoolName } from '../store/repositories/pools.js';
import type { UsageRecord } from '../store/repositories/usage.js';
import type { Store } from '../store/store.js';

/**
 * What tests read of a running role's store: a few named reads, and SELECTs for counts no read names.
 * Nothing here writes: a test changes state through the role's ports, as a gateway would.
 */
export interface StoredReads {
  agent(agentId: string): Promise<AgentRecord | undefined>;
  agents(): Promise<AgentRecord[]>;
  message(id: string): Promise<MessageRecord | undefined>;
  /** How many messages of the agent each channel holds. */
  messageCounts(agentId: string): Promise<Partial<Record<Channel, number>>>;
  /** Stored messages whose delivery to their agent is not done. */
  pendingDeliveries(): Promise<MessageRecord[]>;
  /** How many dead letters wait for the agent. */
  waitingLetters(agentId: string): Promise<number>;
  call(callSid: string): Promise<CallRecord | undefined>;
  usage(agentId: string): Promise<UsageRecord[]>;
  poolCounts(): Promise<Record<PoolName, { total: number; free: number }>>;
  /** The answer recorded under an Idempotency-Key slot. */
  idempotent(scope: string, key: string): Promise<IdempotentResponse | undefined>;
  /** The rows of one SELECT. */
  rows<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row of one SELECT. */
  row<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
}

/** The reads of `store`. */
export function storedReads(store: Store): StoredReads {
  return {
    agent: (agentId) => store.agents.get(agentId),
    agents: () => store.agents.list(),
    message: (id) => store.messages.get(id),
    messageCounts: (agentId) => store.messages.countByChannel(agentId),
    pendingDeliveries: () => store.messages.pendingDeliveries(),
    waitingLetters: (agentId) => store.deadLetters.countPending(agentId),
    call: (callSid) => store.calls.get(callSid),
    usage: (agentId) => store.usage.listForAgent(agentId),
    poolCounts: () => store.pools.counts(),
    idempotent: (scope, key) => store.idempotency.find(scope, key),
    async rows<T>(sql: string, params?: readonly SqlValue[]) {
      return store.db.query<T>(selectOnly(sql), params);
    },
    async row<T>(sql: string, params?: readonly SqlValue[]) {
      return store.db.get<T>(selectOnly(sql), params);
    },
  };
}

function selectOnly(sql: string): string {
  if (!/^\s*select\b/i.test(sql)) throw new SwitchboardError(ErrorCodes.BAD_REQUEST, `Stored reads run one SELECT, not: ${sql.slice(0, 60)}`);
  return sql;
}
