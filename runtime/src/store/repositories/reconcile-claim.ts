import type { SqlExecutor } from '../database.js';

/** A row the reconciler asks about: its table, its key, and the SQL condition that it is still unsettled. */
export interface UnsettledRow {
  readonly table: 'messages' | 'calls';
  readonly keyColumn: 'id' | 'call_sid';
  readonly key: string;
  readonly unsettled: string;
}

/**
 * Takes the next ask about an unsettled row: its `reconciled_at` moves from `previous` (the last ask's
 * time, null before the first) to `at`, if still unsettled. True for the one process, of several
 * sweeping, that took it.
 */
export async function claimAsk(db: SqlExecutor, row: UnsettledRow, previous: string | null, at: Date): Promise<boolean> {
  const asked = previous === null ? 'reconciled_at IS NULL' : 'reconciled_at = ?';
  const sql = `UPDATE ${row.table} SET reconciled_at = ? WHERE ${row.keyColumn} = ? AND ${asked} AND ${row.unsettled}`;
  const { changes } = await db.execute(sql, [at.toISOString(), row.key, ...(previous === null ? [] : [previous])]);
  return changes === 1;
}
