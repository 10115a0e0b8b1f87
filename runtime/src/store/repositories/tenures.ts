import type { Database, Dialect } from '../database.js';
import type { Tenure, TenureRecord } from '../../tenure.js';

/**
 * The condition a fenced write carries: true only while `fence` is the partition's current tenure.
 * On PostgreSQL it also holds the fence row (FOR SHARE) until the write's transaction ends: a newer
 * tenure's {@link TenureRepository.record} waits for it. Without the lock, a node paused between its
 * fenced INSERT and its COMMIT (a group commit left open across a SIGSTOP) committed after the next
 * holder had recorded its tenure and read the agent's usage, so a send was counted by neither node's
 * limit (found by the SIGSTOP fault test: 7 sends accepted under a limit of 6). The wait is bounded by
 * the store's idle-in-transaction time-out (see `PostgresDatabase`), which ends a frozen node's transaction.
 */
export function fenceCondition(fence: TenureRecord, dialect: Dialect): { sql: string; params: [number, number] } {
  const lock = dialect === 'postgres' ? ' FOR SHARE' : '';
  return { sql: `EXISTS (SELECT 1 FROM partition_fences WHERE partition = ? AND token = ?${lock})`, params: [fence.partition, fence.token] };
}

/** The current tenure of each partition of a cluster (table `partition_fences`, migration 7). */
export class TenureRepository {
  constructor(private readonly db: Database) {}

  /**
   * Makes `fence` the partition's current tenure, unless a newer token (a later lease) is there already;
   * false then. Lease revisions only grow, so the newer tenure always wins, whatever order the writes land in.
   */
  async record(fence: TenureRecord, nodeId: string): Promise<boolean> {
    // Its own transaction, not the group commit: on PostgreSQL a takeover never waits for other writes' commit.
    const { changes } = await this.db.transaction((tx) => tx.execute(
      `INSERT INTO partition_fences (partition, token, node_id, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (partition) DO UPDATE SET token = excluded.token, node_id = excluded.node_id, updated_at = excluded.updated_at
       WHERE partition_fences.token < excluded.token`,
      [fence.partition, fence.token, nodeId, new Date().toISOString()],
    ));
    return changes === 1;
  }

  /** Records `fence` whatever token is stored: for a lease bucket made anew, whose revisions start again from 1. */
  async takeOver(fence: TenureRecord, nodeId: string): Promise<void> {
    await this.db.transaction((tx) =>
      tx.execute('UPDATE partition_fences SET token = ?, node_id = ?, updated_at = ? WHERE partition = ?', [fence.token, nodeId, new Date().toISOString(), fence.partition]),
    );
  }

  /** The stored token of a partition. */
  async token(partition: number): Promise<number | undefined> {
    const row = await this.db.get<{ token: number }>('SELECT token FROM partition_fences WHERE partition = ?', [partition]);
    return row === undefined ? undefined : Number(row.token);
  }

  /** Whether `tenure` is still its partition's current one in the store (always, for an unfenced tenure). */
  async isCurrent(tenure: Tenure): Promise<boolean> {
    return tenure.fence === undefined || (await this.token(tenure.fence.partition)) === tenure.fence.token;
  }
}
