import type { Channel } from '@switchboard/sdk';
import type { SqlCondition, SqlExecutor } from '../database.js';

/** Remote numbers that opted out of messages from an agent address. */
export class OptOutRepository {
  constructor(private readonly db: SqlExecutor) {}

  async add(channel: Channel, agentAddress: string, remoteAddress: string): Promise<void> {
    await this.db.execute(
      'INSERT INTO opt_outs (channel, agent_address, remote_address, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (channel, agent_address, remote_address) DO NOTHING',
      [channel, agentAddress, remoteAddress, new Date().toISOString()],
    );
  }

  async remove(channel: Channel, agentAddress: string, remoteAddress: string): Promise<void> {
    await this.db.execute('DELETE FROM opt_outs WHERE channel = ? AND agent_address = ? AND remote_address = ?', [channel, agentAddress, remoteAddress]);
  }

  /** The condition that `remoteAddress` has not opted out of `agentAddress` on `channel`, for a write that goes in only then. */
  absentCondition(channel: Channel, agentAddress: string, remoteAddress: string): SqlCondition {
    return { sql: 'NOT EXISTS (SELECT 1 FROM opt_outs WHERE channel = ? AND agent_address = ? AND remote_address = ?)', params: [channel, agentAddress, remoteAddress] };
  }

  async has(channel: Channel, agentAddress: string, remoteAddress: string): Promise<boolean> {
    const row = await this.db.get('SELECT 1 AS x FROM opt_outs WHERE channel = ? AND agent_address = ? AND remote_address = ?', [
      channel,
      agentAddress,
      remoteAddress,
    ]);
    return row !== undefined;
  }
}
