import type { Channel } from '@switchboard/sdk';
import type { SqlExecutor, SqlStatement } from '../database.js';

/** One billable action. */
export interface UsageRecord {
  readonly id: string;
  readonly agentId: string;
  readonly channel: Channel;
  /** e.g. `message`, `call_minute`, `voice_message`, `transfer`, `tts_characters`. */
  readonly action: string;
  /** Units of the action: segments, minutes, characters. */
  readonly quantity: number;
  /** What the provider charged in USD, once it says; null until then. */
  readonly providerCost: number | null;
  /** What the configured tariff says it costs, in USD. */
  readonly tariffCost: number;
  readonly externalId: string | null;
  readonly createdAt: string;
}

const COLUMNS = 'id, agent_id, channel, action, quantity, provider_cost, tariff_cost, external_id, created_at';
const ROW = '?, ?, ?, ?, ?, ?, ?, ?, ?';

function params(r: UsageRecord) {
  return [r.id, r.agentId, r.channel, r.action, r.quantity, r.providerCost, r.tariffCost, r.externalId, r.createdAt];
}

/** Usage records, the basis of limits and billing. */
export class UsageRepository {
  constructor(private readonly db: SqlExecutor) {}

  async insert(record: UsageRecord, tx: SqlExecutor = this.db): Promise<void> {
    const { sql, params } = this.insertStatement(record);
    await tx.execute(sql, params);
  }

  /** The INSERT for a usage record, to run in an atomic group. */
  insertStatement(record: UsageRecord): SqlStatement {
    return { sql: `INSERT INTO usage_records (${COLUMNS}) VALUES (${ROW})`, params: params(record) };
  }

  /** The INSERT for the usage record of a message, storing nothing unless that message is stored (in the same atomic group). */
  insertForMessageStatement(record: UsageRecord, messageId: string): SqlStatement {
    return {
      sql: `INSERT INTO usage_records (${COLUMNS}) SELECT ${ROW} WHERE EXISTS (SELECT 1 FROM messages WHERE id = ?)`,
      params: [...params(record), messageId],
    };
  }

  /** The UPDATE recording what the provider said about an admitted action: its id, real units and cost. */
  settleStatement(id: string, externalId: string, quantity: number, providerCost: number | null): SqlStatement {
    return { sql: 'UPDATE usage_records SET external_id = ?, quantity = ?, provider_cost = ? WHERE id = ?', params: [externalId, quantity, providerCost, id] };
  }

  /** The tariff cost an admitted action was counted at. */
  async tariffCostOf(id: string): Promise<number | undefined> {
    const row = await this.db.get<{ tariff_cost: number }>('SELECT tariff_cost FROM usage_records WHERE id = ?', [id]);
    return row?.tariff_cost;
  }

  /** Removes a usage record whose action did not happen (the provider refused it). */
  async delete(id: string, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute('DELETE FROM usage_records WHERE id = ?', [id]);
  }

  /** Actions and spend (provider cost when known, else tariff) since each given time, in one statement. */
  async totalsSince(agentId: string, starts: Record<string, number>): Promise<Record<string, { actions: number; spend: number }>> {
    const windows = Object.entries(starts).map(([name, start]) => [name, new Date(start).toISOString()] as const);
    if (windows.length === 0) return {};
    const columns = windows.map(
      (_, i) => `COALESCE(SUM(CASE WHEN created_at >= ? THEN 1 ELSE 0 END), 0) AS a${i}, SUM(CASE WHEN created_at >= ? THEN COALESCE(provider_cost, tariff_cost) END) AS s${i}`,
    );
    const earliest = windows.reduce((min, [, at]) => (at < min ? at : min), windows[0]![1]);
    const row = await this.db.get<Record<string, number | null>>(
      `SELECT ${columns.join(', ')} FROM usage_records WHERE agent_id = ? AND created_at >= ?`,
      [...windows.flatMap(([, at]) => [at, at]), agentId, earliest],
    );
    return Object.fromEntries(windows.map(([name], i) => [name, { actions: Number(row?.[`a${i}`] ?? 0), spend: Number(row?.[`s${i}`] ?? 0) }]));
  }

  /** Sums per agent and channel since a time: actions, units, provider-or-tariff cost. */
  async summarise(since: Date, agentId?: string): Promise<{ agentId: string; channel: string; action: string; count: number; quantity: number; cost: number }[]> {
    const where = agentId === undefined ? 'created_at >= ?' : 'created_at >= ? AND agent_id = ?';
    const params = agentId === undefined ? [since.toISOString()] : [since.toISOString(), agentId];
    return this.db.query(
      `SELECT agent_id AS "agentId", channel, action, COUNT(*) AS count, SUM(quantity) AS quantity, SUM(COALESCE(provider_cost, tariff_cost)) AS cost
       FROM usage_records WHERE ${where} GROUP BY agent_id, channel, action ORDER BY agent_id, channel, action`,
      params,
    );
  }

  /** The UPDATE setting the provider's cost on the records of one provider id, when the provider reports it late. */
  setProviderCostStatement(agentId: string, externalId: string, cost: number): SqlStatement {
    return { sql: 'UPDATE usage_records SET provider_cost = ? WHERE agent_id = ? AND external_id = ?', params: [cost, agentId, externalId] };
  }

  async listForAgent(agentId: string): Promise<UsageRecord[]> {
    const rows = await this.db.query<{
      id: string;
      agent_id: string;
      channel: Channel;
      action: string;
      quantity: number;
      provider_cost: number | null;
      tariff_cost: number;
      external_id: string | null;
      created_at: string;
    }>('SELECT * FROM usage_records WHERE agent_id = ? ORDER BY created_at', [agentId]);
    return rows.map((r) => ({
      id: r.id,
      agentId: r.agent_id,
      channel: r.channel,
      action: r.action,
      quantity: r.quantity,
      providerCost: r.provider_cost,
      tariffCost: r.tariff_cost,
      externalId: r.external_id,
      createdAt: r.created_at,
    }));
  }
}
