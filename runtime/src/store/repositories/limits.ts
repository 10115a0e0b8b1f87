import type { SqlExecutor } from '../database.js';

/** An agent's own limits and markup, laid over the defaults. */
export interface AgentLimitOverrides {
  /** Limit name to value (null: unlimited), as limits/limits.ts names them; the store keeps them as given. */
  readonly overrides: Readonly<Record<string, number | null>>;
  /** Markup for this agent in percent; null uses the global markup. */
  readonly markupPercent: number | null;
}

/** Per-agent limit overrides and markup. */
export class LimitsRepository {
  constructor(private readonly db: SqlExecutor) {}

  async get(agentId: string): Promise<AgentLimitOverrides> {
    const row = await this.db.get<{ overrides: string; markup_percent: number | null }>(
      'SELECT overrides, markup_percent FROM agent_limits WHERE agent_id = ?',
      [agentId],
    );
    return { overrides: row ? (JSON.parse(row.overrides) as Record<string, number | null>) : {}, markupPercent: row?.markup_percent ?? null };
  }

  async set(agentId: string, value: AgentLimitOverrides): Promise<void> {
    await this.db.execute(
      `INSERT INTO agent_limits (agent_id, overrides, markup_percent, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (agent_id) DO UPDATE SET overrides = excluded.overrides, markup_percent = excluded.markup_percent, updated_at = excluded.updated_at`,
      [agentId, JSON.stringify(value.overrides), value.markupPercent, new Date().toISOString()],
    );
  }

  async delete(tx: SqlExecutor, agentId: string): Promise<void> {
    await tx.execute('DELETE FROM agent_limits WHERE agent_id = ?', [agentId]);
  }
}
