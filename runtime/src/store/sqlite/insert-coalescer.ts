import type { SqlValue } from '../database.js';
import type { StatementCache } from './statement-cache.js';
import { runEach, type Outcome, type PendingWrite } from './writes.js';

/** SQLite's default limit on host parameters per statement is 32,766; stay below it. */
const MAX_PARAMS = 32_000;

/**
 * A single-row INSERT whose rows can be sent to SQLite as one multi-row statement: `INSERT … VALUES
 * (?, …)`, or a conditional `INSERT INTO t (…) SELECT ?, … WHERE <condition>`, whose rows become the
 * arms of one `UNION ALL`.
 */
export interface InsertShape {
  /** `INSERT … VALUES `, or `INSERT INTO t (…) ` */
  readonly head: string;
  /** `(?, ?, …)`, or `SELECT ?, … WHERE …` */
  readonly row: string;
  /** What joins two rows: `,` or ` UNION ALL `. */
  readonly joiner: string;
  /** What follows the row: nothing, or a conflict clause that skips rows. */
  readonly tail: string;
  /** Parameters per row. */
  readonly columns: number;
  /** Most rows in one statement (SQLite allows 500 arms in a compound SELECT). */
  readonly maxRows: number;
  /** Rows may be skipped (`OR IGNORE`, `ON CONFLICT … DO NOTHING`, a condition), so `changes` is per row. */
  readonly tolerant: boolean;
  /** The first column: a tolerant insert returns it to tell which rows went in. */
  readonly firstColumn: string;
}

const INSERT_SHAPE =
  /^(\s*INSERT\s+(OR\s+IGNORE\s+)?INTO\s+\w+\s*\(\s*(\w+)[\w\s,]*\)\s*VALUES\s*)(\((?:\s*\?\s*,)*\s*\?\s*\))(\s*(ON\s+CONFLICT\s*(?:\([\w\s,]+\))?\s*DO\s+NOTHING)?\s*)$/i;
/** `INSERT INTO t (…) SELECT ?, … WHERE …`: placeholders only in the select list, one statement, no compound or clause after the condition. */
const CONDITIONAL_SHAPE = /^(\s*INSERT\s+INTO\s+\w+\s*\(\s*(\w+)[\w\s,]*\)\s*)(SELECT\s+(?:\?\s*,\s*)*\?\s+WHERE\s+[^;]+)$/i;
const NOT_ONE_CONDITION = /\b(UNION|INTERSECT|EXCEPT|ORDER|LIMIT|GROUP|RETURNING|ON\s+CONFLICT)\b|['"`]/i;
const shapes = new Map<string, InsertShape | null>();

/** The coalescible shape of `sql`, once per distinct statement text; null when it has none. */
export function insertShape(sql: string): InsertShape | null {
  let shape = shapes.get(sql);
  if (shape !== undefined) return shape;
  const m = INSERT_SHAPE.exec(sql);
  const c = m ? null : CONDITIONAL_SHAPE.exec(sql);
  if (m) {
    shape = { head: m[1]!, firstColumn: m[3]!, row: m[4]!, joiner: ',', tail: m[5]!, columns: m[4]!.split('?').length - 1, maxRows: Infinity, tolerant: Boolean(m[2] || m[6]) };
  } else if (c && !NOT_ONE_CONDITION.test(c[3]!.slice(c[3]!.search(/\bWHERE\b/i)))) {
    shape = { head: c[1]!, firstColumn: c[2]!, row: c[3]!, joiner: ' UNION ALL ', tail: '', columns: c[3]!.split('?').length - 1, maxRows: 256, tolerant: true };
  } else shape = null;
  shapes.set(sql, shape);
  return shape;
}

/**
 * Runs same-shaped single-row INSERTs as multi-row statements: one statement for SQLite to parse
 * and run instead of one per row (a statement costs ~100 µs of hand-offs here, a row ~7 µs). The
 * rows go out in chunks of power-of-two sizes (37 rows: 32 + 4 + 1), so a few statement texts
 * cover every batch and stay prepared. Each row still reports its own `changes`. A combined
 * statement that fails (one bad row fails it, and SQLite undoes all of it) has its rows run one by
 * one. A conflict-tolerant INSERT returns its first column (an id, given as text), which tells the
 * rows it inserted from those it skipped; when the batch gives the same id twice, its rows run one
 * after another, in the order issued. Resolves false when a returned value names no row (the
 * column changed the text on the way in): then only a replay can tell.
 */
export async function runInserts(
  statements: StatementCache,
  shape: InsertShape,
  writes: readonly PendingWrite[],
  outcomes: Map<PendingWrite, Outcome>,
): Promise<boolean> {
  if (shape.tolerant && !firstValuesDistinct(writes)) {
    // The same id twice: one after another, so the first issued is the one that goes in.
    for (const w of writes) await runEach(statements, [w], outcomes);
    return true;
  }
  const largest = 2 ** Math.floor(Math.log2(Math.max(1, Math.min(shape.maxRows, Math.floor(MAX_PARAMS / shape.columns)))));
  const chunks: PendingWrite[][] = [];
  for (let start = 0; start < writes.length; ) {
    const size = Math.min(largest, 2 ** Math.floor(Math.log2(writes.length - start)));
    chunks.push(writes.slice(start, start + size));
    start += size;
  }
  const told = await Promise.all(chunks.map((chunk) => runChunk(statements, shape, chunk, outcomes)));
  return told.every(Boolean);
}

/** One multi-row INSERT of `runInserts`; false when a tolerant one cannot tell its rows apart. */
async function runChunk(statements: StatementCache, shape: InsertShape, chunk: readonly PendingWrite[], outcomes: Map<PendingWrite, Outcome>): Promise<boolean> {
  if (chunk.length === 1) {
    await runEach(statements, chunk, outcomes);
    return true;
  }
  const sql = `${shape.head}${Array(chunk.length).fill(shape.row).join(shape.joiner)}${shape.tail}`;
  const params = chunk.flatMap((w) => w.statements[0]!.params ?? []);
  let inserted: (w: PendingWrite) => boolean = () => true;
  try {
    if (shape.tolerant) {
      const rows = await statements.all<Record<string, SqlValue>>(`${sql} RETURNING ${shape.firstColumn}`, params);
      const returned = new Set(rows.map((row) => row[shape.firstColumn]));
      inserted = (w) => returned.has(w.statements[0]!.params![0]!);
      if (chunk.filter(inserted).length !== rows.length) return false;
    } else {
      await statements.run(sql, params);
    }
  } catch {
    await runEach(statements, chunk, outcomes);
    return true;
  }
  for (const w of chunk) outcomes.set(w, { ok: true, results: [{ changes: inserted(w) ? 1 : 0 }] });
  return true;
}

/** True when the rows' first values are distinct strings, so that a returned value names one row. */
function firstValuesDistinct(writes: readonly PendingWrite[]): boolean {
  const values = writes.map((w) => w.statements[0]!.params?.[0]);
  return values.every((v) => typeof v === 'string') && new Set(values).size === values.length;
}
