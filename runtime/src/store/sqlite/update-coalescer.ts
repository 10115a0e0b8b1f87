import type { SqlValue } from '../database.js';
import type { StatementCache } from './statement-cache.js';
import { runEach, type Outcome, type PendingWrite } from './writes.js';

/** SQLite's default limit on host parameters per statement is 32,766; stay below it. */
const MAX_PARAMS = 32_000;

/**
 * An UPDATE whose rows are picked by equality on columns (`WHERE a = ? AND b = ? [AND c = 'x']`):
 * several of them can run as one `WITH v AS (VALUES …) UPDATE … FROM v`, whose `RETURNING` names
 * the rows each changed.
 */
export interface UpdateShape {
  /** `UPDATE t SET …` with the i-th `?` as `v.pi`. */
  readonly head: string;
  /** The WHERE clause with its `?` as `v.pi`. */
  readonly where: string;
  /** Parameters per row. */
  readonly columns: number;
  /** The WHERE's `col = ?` terms: the column, and which parameter it is. */
  readonly keys: readonly { readonly column: string; readonly param: number }[];
}

const UPDATE_SHAPE = /^\s*(UPDATE\s+\w+\s+SET\s+)([\s\S]+?)\s+WHERE\s+([\s\S]+)$/i;
/** What an UPDATE must not hold to be coalesced: its own FROM or RETURNING, a subquery, ordering, or a statement break. */
const NOT_SIMPLE = /\b(FROM|RETURNING|SELECT|ORDER|LIMIT|WITH)\b|;/i;
const KEY_TERM = /^(\w+)\s*=\s*(\?|'[^'?]*')$/;
const shapes = new Map<string, UpdateShape | null>();

/** The coalescible shape of `sql`, once per distinct statement text; null when it has none. */
export function updateShape(sql: string): UpdateShape | null {
  let shape = shapes.get(sql);
  if (shape === undefined) {
    shape = parse(sql);
    shapes.set(sql, shape);
  }
  return shape;
}

function parse(sql: string): UpdateShape | null {
  const m = UPDATE_SHAPE.exec(sql);
  if (!m) return null;
  const [, update, set, where] = m as unknown as [string, string, string, string];
  // Placeholders are numbered in order; a quoted literal may hold no `?` (it would be miscounted).
  const unquoted = sql.split("'").filter((_, i) => i % 2 === 0);
  if (sql.split("'").some((part, i) => i % 2 === 1 && part.includes('?'))) return null;
  if (unquoted.some((part) => NOT_SIMPLE.test(part))) return null;
  const setParams = set.split('?').length - 1;
  const keys: { column: string; param: number }[] = [];
  let param = setParams;
  for (const term of where.split(/\s+AND\s+/i)) {
    const k = KEY_TERM.exec(term.trim());
    // A term with no placeholder (`status NOT IN ('read')`) holds alike for every write: it stays as written.
    if (!k && term.includes('?')) return null;
    if (k?.[2] === '?') keys.push({ column: k[1]!, param: param++ });
  }
  // RETURNING gives a row's keys after the update: a SET that changes one could credit another write.
  if (keys.length === 0 || keys.some((k) => new RegExp(`(^|,)\\s*${k.column}\\s*=`, 'i').test(set))) return null;
  let n = 0;
  const numbered = (text: string) =>
    text
      .split("'")
      .map((part, i) => (i % 2 === 1 ? part : part.replace(/\?/g, () => `v.p${++n}`)))
      .join("'");
  const head = `${update}${numbered(set)}`;
  return { head, where: numbered(where), columns: param, keys };
}

/**
 * Runs same-shaped UPDATEs as `WITH v (p1, …) AS (VALUES (…), …) UPDATE … FROM v WHERE …
 * RETURNING <key columns>`: one statement instead of one per write. Each write's `changes` is the
 * number of returned rows with its key. Writes with the same key run one after another in the
 * order issued; a combined statement that fails has its writes run one by one. Resolves false when
 * a returned key names no write (a column that rewrote the value): then only a replay can tell.
 */
export async function runUpdates(
  statements: StatementCache,
  shape: UpdateShape,
  writes: readonly PendingWrite[],
  outcomes: Map<PendingWrite, Outcome>,
): Promise<boolean> {
  const keyOf = (params: readonly unknown[]) => JSON.stringify(shape.keys.map((k) => params[k.param]));
  const keys = writes.map((w) => keyOf(w.statements[0]!.params ?? []));
  if (new Set(keys).size !== keys.length) {
    for (const w of writes) await runEach(statements, [w], outcomes);
    return true;
  }
  const largest = 2 ** Math.floor(Math.log2(Math.max(1, Math.floor(MAX_PARAMS / shape.columns))));
  const told: Promise<boolean>[] = [];
  for (let start = 0; start < writes.length; ) {
    const size = Math.min(largest, 2 ** Math.floor(Math.log2(writes.length - start)));
    told.push(runChunk(statements, shape, writes.slice(start, start + size), keys.slice(start, start + size), outcomes));
    start += size;
  }
  return (await Promise.all(told)).every(Boolean);
}

async function runChunk(
  statements: StatementCache,
  shape: UpdateShape,
  chunk: readonly PendingWrite[],
  keys: readonly string[],
  outcomes: Map<PendingWrite, Outcome>,
): Promise<boolean> {
  if (chunk.length === 1) {
    await runEach(statements, chunk, outcomes);
    return true;
  }
  const names = Array.from({ length: shape.columns }, (_, i) => `p${i + 1}`).join(', ');
  const row = `(${Array(shape.columns).fill('?').join(', ')})`;
  const returning = shape.keys.map((k) => k.column).join(', ');
  const sql = `WITH v (${names}) AS (VALUES ${Array(chunk.length).fill(row).join(', ')}) ${shape.head} FROM v WHERE ${shape.where} RETURNING ${returning}`;
  const params = chunk.flatMap((w) => w.statements[0]!.params ?? []);
  let rows: Record<string, SqlValue>[];
  try {
    rows = await statements.all<Record<string, SqlValue>>(sql, params);
  } catch {
    await runEach(statements, chunk, outcomes);
    return true;
  }
  const changes = new Map<string, number>(keys.map((k) => [k, 0]));
  for (const row of rows) {
    const key = JSON.stringify(shape.keys.map((k) => row[k.column]));
    const seen = changes.get(key);
    if (seen === undefined) return false;
    changes.set(key, seen + 1);
  }
  for (const [i, w] of chunk.entries()) outcomes.set(w, { ok: true, results: [{ changes: changes.get(keys[i]!)! }] });
  return true;
}
