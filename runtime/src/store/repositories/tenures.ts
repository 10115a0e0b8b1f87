import type { SqlExecutor } from '../database.js';

/** A runtime node's tenure of a partition: the partition and the fencing token (lease revision) it took it with. */
export interface PartitionTenure {
  readonly partition: number;
  readonly token: number;
}

/** The condition a fenced write carries: true only while `tenure` is the partition's current one. */
export function fenceCondition(tenure: PartitionTenure): { sql: string; params: [number, number] } {
  return { sql: 'EXISTS (SELECT 1 FROM partition_fences WHERE partition = ? AND token = ?)', params: [tenure.partition, tenure.token] };
}

/** The current tenure of each partition of a cluster (see migration 7). */
export class PartitionFenceRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * Makes `tenure` the partition's current one, unless a newer token (a later lease) is there already;
   * false then. Lease revisions only grow, so the newer tenure always wins, whatever order the writes land in.
   */
  async claim(tenure: PartitionTenure, nodeId: string): Promise<boolean> {
    const { changes } = await this.db.execute(
      `INSERT INTO partition_fences (partition, token, node_id, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (partition) DO UPDATE SET token = excluded.token, node_id = excluded.node_id, updated_at = excluded.updated_at
       WHERE partition_fences.token < excluded.token`,
      [tenure.partition, tenure.token, nodeId, new Date().toISOString()],
    );
    return changes === 1;
  }

  /** Takes the partition whatever token is stored: for a lease bucket made anew, whose revisions start again from 1. */
  async force(tenure: PartitionTenure, nodeId: string): Promise<void> {
    await this.db.execute('UPDATE partition_fences SET token = ?, node_id = ?, updated_at = ? WHERE partition = ?', [
      tenure.token,
      nodeId,
      new Date().toISOString(),
      tenure.partition,
    ]);
  }

  /** The stored token of a partition. */
  async token(partition: number): Promise<number | undefined> {
    const row = await this.db.get<{ token: number }>('SELECT token FROM partition_fences WHERE partition = ?', [partition]);
    return row === undefined ? undefined : Number(row.token);
  }

  /** Whether `tenure` is still the partition's current one. */
  async holds(tenure: PartitionTenure): Promise<boolean> {
    return (await this.token(tenure.partition)) === tenure.token;
  }
}
