import type { SqlExecutor } from '../database.js';

/** A table the reconciler asks about rows of: its key, and the SQL condition that a row is still unsettled. */
export interface UnsettledTable {
  readonly table: 'messages' | 'calls';
  readonly keyColumn: 'id' | 'call_sid';
  readonly unsettled: string;
}

/**
 * The unsettled rows due for an ask at `now`: those never asked about created before `firstAskCut`
 * (oldest first), then those whose next ask is due (earliest first); each through its partial index.
 */
export async function dueForAsk<Row>(db: SqlExecutor, table: UnsettledTable, firstAskCut: Date, now: Date, limit: number): Promise<Row[]> {
  const unasked = await db.query<Row>(`SELECT * FROM ${table.table} WHERE next_ask_at IS NULL AND ${table.unsettled} AND created_at < ? ORDER BY created_at LIMIT ?`, [
    firstAskCut.toISOString(),
    limit,
  ]);
  const asked = await db.query<Row>(`SELECT * FROM ${table.table} WHERE next_ask_at IS NOT NULL AND ${table.unsettled} AND next_ask_at <= ? ORDER BY next_ask_at LIMIT ?`, [
    now.toISOString(),
    limit,
  ]);
  return [...unasked, ...asked];
}

/**
 * Takes the ask about an unsettled row that is due: its `next_ask_at` moves from `previous` (null before
 * the first ask) to `next`, if still unsettled. True for the one process, of several sweeping, that took it.
 */
export async function claimAsk(db: SqlExecutor, table: UnsettledTable, key: string, previous: string | null, next: Date): Promise<boolean> {
  const asked = previous === null ? 'next_ask_at IS NULL' : 'next_ask_at = ?';
  const sql = `UPDATE ${table.table} SET next_ask_at = ? WHERE ${table.keyColumn} = ? AND ${asked} AND ${table.unsettled}`;
  const { changes } = await db.execute(sql, [next.toISOString(), key, ...(previous === null ? [] : [previous])]);
  return changes === 1;
}
