import { ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';
import type { SqlValue } from '../store/database.js';
import type { CallbackEndpoint, CallbackLogRow } from '../store/repositories/callbacks.js';
import type { Store } from '../store/store.js';

/** A filter of the operator's message log and dead-letter list; `status` means delivery status for messages, pending/acknowledged for dead letters. */
export interface ListFilter {
  agentId?: string;
  channel?: Channel;
  direction?: 'inbound' | 'outbound';
  status?: string;
  /** ISO 8601. */
  since?: string;
  /** At most this many rows (100 when absent). */
  limit?: number;
}

/** A page of an agent's callback delivery log, newest first. */
export interface CallbackLogPage {
  agentId: string;
  attempts: CallbackLogRow[];
  /** Pass as `cursor` for the next (older) page; null when this is the last. */
  nextCursor: string | null;
  /** The agent's endpoint: its URL, since when it has been failing, when it was disabled; null before any attempt. */
  endpoint: CallbackEndpoint | null;
}

/** Actions and their cost over a period. */
export interface Totals {
  actions: number;
  cost: number;
}

/** What the operator's dashboard is drawn from (its alerts are judged by the gateway). */
export interface DashboardFigures {
  agents: { total: number; active: number };
  usage: { today: Totals; month: Totals };
  deadLetters: { pending: number };
  pools: Record<string, { total: number; free: number }>;
  series: {
    days: { date: string; actions: number; cost: number }[];
    channelsToday: Record<string, Totals>;
    messagesToday: { inbound: number; outbound: number };
  };
  /** Callbacks that became dead letters in the last hour. */
  failedCallbacksLastHour: number;
  /** Agents' callback endpoints disabled after failing for too long (for the URL each agent still has). */
  disabledCallbacks: CallbackEndpoint[];
  /** Each agent's spend today (UTC). */
  spendToday: { agentId: string; cost: number }[];
  /** Contacts the policy refused today (UTC), by refusal code. */
  refusalsToday: Record<string, number>;
}

const MESSAGE_COLUMNS =
  'id, agent_id AS "agentId", channel, direction, from_address AS "from", to_address AS "to", subject, body, external_id AS "externalId", status, segments, cost, error, created_at AS "createdAt"';
const LETTER_COLUMNS =
  'id, agent_id AS "agentId", channel, direction, reason, from_address AS "from", to_address AS "to", subject, body, error, attempts, created_at AS "createdAt", acknowledged_at AS "acknowledgedAt"';
const CALL_COLUMNS =
  'call_sid AS "callSid", agent_id AS "agentId", direction, mode, from_address AS "from", to_address AS "to", status, duration_seconds AS "durationSeconds", cost, created_at AS "createdAt"';
const COST = 'COALESCE(provider_cost, tariff_cost)';
const DAYS = 14;

const round = (n: number) => Math.round(n * 10_000) / 10_000;

function dayStart(offsetDays = 0): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - offsetDays));
}

function monthStart(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/**
 * The operator's read-only queries across agents: the message log, dead letters, an agent's recent
 * activity, usage totals and the dashboard's figures. Agent state changes go through the actors;
 * these only read, from whichever process serves the admin API.
 */
export class OperatorReads {
  constructor(private readonly store: Store) {}

  /** The message log, newest first. */
  messages(filter: ListFilter): Promise<Record<string, unknown>[]> {
    const { sql, params } = where(filter, 'messages');
    return this.store.db.query(`SELECT ${MESSAGE_COLUMNS} FROM messages ${sql} ORDER BY created_at DESC LIMIT ?`, [...params, filter.limit ?? 100]);
  }

  /** Dead letters, newest first. */
  deadLetters(filter: ListFilter): Promise<Record<string, unknown>[]> {
    const { sql, params } = where(filter, 'dead_letters');
    return this.store.db.query(`SELECT ${LETTER_COLUMNS} FROM dead_letters ${sql} ORDER BY created_at DESC LIMIT ?`, [...params, filter.limit ?? 100]);
  }

  /** An agent's latest 50 messages, 20 calls and 50 dead letters, newest first. */
  async recentActivity(agentId: string) {
    const { db } = this.store;
    return {
      messages: await db.query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE agent_id = ? ORDER BY created_at DESC LIMIT 50`, [agentId]),
      calls: await db.query(`SELECT ${CALL_COLUMNS} FROM calls WHERE agent_id = ? ORDER BY created_at DESC LIMIT 20`, [agentId]),
      deadLetters: await db.query(`SELECT ${LETTER_COLUMNS} FROM dead_letters WHERE agent_id = ? ORDER BY created_at DESC LIMIT 50`, [agentId]),
    };
  }

  /** A page of an agent's callback delivery log: at most `limit` attempts older than `cursor` (an attempt id), newest first. */
  async callbackLog(agentId: string, options: { cursor?: string; limit?: number } = {}): Promise<CallbackLogPage> {
    const limit = options.limit ?? 100;
    const found = await this.store.callbacks.log(agentId, limit + 1, options.cursor);
    const attempts = found.slice(0, limit);
    return {
      agentId,
      attempts,
      nextCursor: found.length > limit ? attempts.at(-1)!.id : null,
      endpoint: (await this.store.callbacks.endpoint(agentId)) ?? null,
    };
  }

  /** Usage of today and this month (UTC), overall or for one agent. */
  async usageTotals(agentId?: string): Promise<{ today: Totals; month: Totals }> {
    return { today: await this.#totals(dayStart(), agentId), month: await this.#totals(monthStart(), agentId) };
  }

  /** Counts, usage and the series the dashboard's charts draw. */
  async dashboard(): Promise<DashboardFigures> {
    const { db } = this.store;
    const agents = await this.store.agents.list();
    const today = dayStart().toISOString();
    const rows = await db.query<{ day: string; n: number; cost: number | null }>(
      `SELECT SUBSTR(created_at, 1, 10) AS day, COUNT(*) AS n, SUM(${COST}) AS cost FROM usage_records WHERE created_at >= ? GROUP BY SUBSTR(created_at, 1, 10)`,
      [dayStart(DAYS - 1).toISOString()],
    );
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const days = Array.from({ length: DAYS }, (_, i) => {
      const date = dayStart(DAYS - 1 - i).toISOString().slice(0, 10);
      const row = byDay.get(date);
      return { date, actions: Number(row?.n ?? 0), cost: round(Number(row?.cost ?? 0)) };
    });
    const channelRows = await db.query<{ channel: string; n: number; cost: number | null }>(
      `SELECT channel, COUNT(*) AS n, SUM(${COST}) AS cost FROM usage_records WHERE created_at >= ? GROUP BY channel`,
      [today],
    );
    const directionRows = await db.query<{ direction: string; n: number }>('SELECT direction, COUNT(*) AS n FROM messages WHERE created_at >= ? GROUP BY direction', [today]);
    const messagesToday = { inbound: 0, outbound: 0 };
    for (const r of directionRows) if (r.direction === 'inbound' || r.direction === 'outbound') messagesToday[r.direction] = Number(r.n);
    const failed = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM dead_letters WHERE created_at >= ? AND reason = 'callback_failed'", [
      new Date(Date.now() - 3_600_000).toISOString(),
    ]);
    const spenders = await db.query<{ agent_id: string; cost: number }>(`SELECT agent_id, SUM(${COST}) AS cost FROM usage_records WHERE created_at >= ? GROUP BY agent_id`, [today]);
    return {
      agents: { total: agents.length, active: agents.filter((a) => a.status === 'active').length },
      usage: await this.usageTotals(),
      deadLetters: { pending: await this.store.deadLetters.countPending() },
      pools: await this.store.pools.counts(),
      series: {
        days,
        channelsToday: Object.fromEntries(channelRows.map((r) => [r.channel, { actions: Number(r.n), cost: round(Number(r.cost ?? 0)) }])),
        messagesToday,
      },
      failedCallbacksLastHour: Number(failed?.n ?? 0),
      disabledCallbacks: await this.store.callbacks.disabledEndpoints(),
      spendToday: spenders.map((s) => ({ agentId: s.agent_id, cost: Number(s.cost) })),
      refusalsToday: await this.store.contactRefusals.countsSince(today),
    };
  }

  async #totals(since: Date, agentId?: string): Promise<Totals> {
    const where = agentId ? 'created_at >= ? AND agent_id = ?' : 'created_at >= ?';
    const params = agentId ? [since.toISOString(), agentId] : [since.toISOString()];
    const row = await this.store.db.get<{ n: number | null; cost: number | null }>(`SELECT COUNT(*) AS n, SUM(${COST}) AS cost FROM usage_records WHERE ${where}`, params);
    return { actions: Number(row?.n ?? 0), cost: round(Number(row?.cost ?? 0)) };
  }
}

/** WHERE clause and parameters of a list filter. */
function where(filter: ListFilter, table: 'messages' | 'dead_letters'): { sql: string; params: SqlValue[] } {
  const clauses: string[] = [];
  const params: SqlValue[] = [];
  const add = (clause: string, value?: SqlValue) => {
    clauses.push(clause);
    if (value !== undefined) params.push(value);
  };
  if (filter.agentId) add('agent_id = ?', filter.agentId);
  if (filter.channel) add('channel = ?', filter.channel);
  if (filter.direction) add('direction = ?', filter.direction);
  if (filter.since) add('created_at >= ?', new Date(filter.since).toISOString());
  if (filter.status) {
    if (table === 'messages') add('status = ?', filter.status);
    else if (filter.status === 'pending') add('acknowledged_at IS NULL');
    else if (filter.status === 'acknowledged') add('acknowledged_at IS NOT NULL');
    else throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'status of a dead letter is pending or acknowledged.');
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
