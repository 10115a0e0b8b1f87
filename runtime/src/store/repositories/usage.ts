import type { Channel } from '@switchboard/sdk';
import type { SqlExecutor } from '../database.js';

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

/** Usage records, the basis of limits and billing. */
export class UsageRepository {
  constructor(private readonly db: SqlExecutor) {}

  async insert(record: UsageRecord, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute(
      `INSERT INTO usage_records (id, agent_id, channel, action, quantity, provider_cost, tariff_cost, external_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        record.id,
        record.agentId,
        record.channel,
        record.action,
        record.quantity,
        record.providerCost,
        record.tariffCost,
        record.externalId,
        record.createdAt,
      ],
    );
  }

  /** Sets the provider's cost on the records of one provider id, when the provider reports it late. */
  async setProviderCost(agentId: string, externalId: string, cost: number, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute('UPDATE usage_records SET provider_cost = ? WHERE agent_id = ? AND external_id = ?', [cost, agentId, externalId]);
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
