import type pg from 'pg';
import type { ExecuteResult, SqlStatement, SqlValue } from '../database.js';
import type { ColumnTypes } from './column-types.js';
import { namedQuery } from './placeholders.js';

/**
 * Multi-row statements for PostgreSQL's group commit: the same single-row INSERT issued by many writes
 * of one commit runs as one statement (a `VALUES` list, or a `UNION ALL` of conditional selects), so the
 * server binds, plans and runs one statement and the client sends and reads one, not one per row. Each
 * statement returns its rows' `id`, so each write still gets its own `changes`. The SQLite store does the
 * same (sqlite/insert-coalescer.ts). UPDATEs stay one per row here: joined to a `VALUES` list, an UPDATE
 * whose plan was made while its table's statistics were small (a new database) kept a sequential scan,
 * dearer with every row the table gained (docs/DECISIONS.md).
 */

/** A statement of many rows: its text for `rows` rows, and what tells its rows apart in its answer. */
interface MultiRow {
  readonly table: string;
  /** Parameters per row. */
  readonly columns: number;
  /** The column whose returned values name the rows that went in (`id`, else the first), and its parameter in a row. */
  readonly identity: { readonly column: string; readonly param: number };
  /** The text for `rows` rows, its parameters cast where PostgreSQL cannot infer their types; undefined while they are unknown. */
  text(rows: number, types: ReadonlyMap<string, string> | undefined): string | undefined;
}

const INSERT =
  /^\s*(INSERT\s+INTO\s+(\w+)\s*\(([\w\s,]+)\)\s*)(?:VALUES\s*(\((?:\s*\?\s*,)*\s*\?\s*\))|SELECT\s+((?:\?\s*,\s*)*\?)\s+(WHERE\s+[\s\S]+?))(\s+ON\s+CONFLICT\s*(?:\([\w\s,]+\))?\s*DO\s+NOTHING)?\s*$/i;
/** What a conditional row's WHERE must not hold to be one arm of a `UNION ALL`. */
const NOT_ONE_ARM = /\b(UNION|INTERSECT|EXCEPT|RETURNING|ORDER|LIMIT|OFFSET|GROUP|FETCH)\b|;/i;
/** Most parameters in one statement (PostgreSQL's limit is 65,535). */
const MOST_PARAMS = 65_000;
/** Most rows in one statement. */
const MOST_ROWS = 256;

const shapes = new Map<string, MultiRow | null>();

/** The multi-row form of `sql`, once per distinct text; null when it has none. */
export function multiRowOf(sql: string): MultiRow | null {
  let shape = shapes.get(sql);
  if (shape === undefined) {
    shape = hasQuotedPlaceholder(sql) ? null : insertOf(sql);
    shapes.set(sql, shape);
  }
  return shape;
}

function insertOf(sql: string): MultiRow | null {
  const m = INSERT.exec(sql);
  if (!m) return null;
  const [, head, table, list, values, selected, condition, conflict] = m as unknown as [string, string, string, string, string?, string?, string?, string?];
  const columns = list.split(',').map((c) => c.trim());
  const column = columns.includes('id') ? 'id' : columns[0]!;
  const identity = { column, param: columns.indexOf(column) };
  const tail = `${conflict ?? ''} RETURNING ${column}`;
  if (values !== undefined) {
    // In an INSERT's own VALUES list each parameter takes its column's type.
    return { table, columns: count(values), identity, text: (rows) => `${head}VALUES ${Array(rows).fill(values).join(', ')}${tail}` };
  }
  // A condition that reads the target table would not see the rows earlier arms of the same statement insert
  // (one after another, each would): such an INSERT runs one row at a time.
  const readsTarget = new RegExp(`\\b${table}\\b`, 'i').test(condition!);
  if (readsTarget || NOT_ONE_ARM.test(condition!) || count(selected!) !== columns.length) return null;
  const arm = `SELECT ${selected} ${condition}`;
  return {
    table,
    columns: count(arm),
    identity,
    text(rows, types) {
      // A UNION ALL types its columns from its arms: the first arm's parameters carry their columns' types.
      const casts = columns.map((c) => types?.get(c));
      if (casts.some((t) => t === undefined)) return undefined;
      const first = `SELECT ${casts.map((t) => `?::${t}`).join(', ')} ${condition}`;
      return `${head}${[first, ...Array(rows - 1).fill(arm)].join(' UNION ALL ')}${tail}`;
    },
  };
}

function count(text: string): number {
  return text.split('?').length - 1;
}

function hasQuotedPlaceholder(sql: string): boolean {
  return sql.split("'").some((part, i) => i % 2 === 1 && part.includes('?'));
}

/**
 * Queues every statement of `writes` on `client`, inside the caller's transaction, and resolves each
 * write's results; undefined when a statement failed or a multi-row statement's answer named a row no
 * write gave (the caller rolls back and runs the writes one at a time). Writes made of the same
 * statements run step by step: every write's first statement, as multi-row statements where it has
 * that form, then every second one, and so on, so a write's statements keep their order. Everything is
 * queued at once, in that order; the connection runs it so (pg's pipeline mode).
 */
export async function runWrites(client: pg.PoolClient, writes: readonly (readonly SqlStatement[])[], types: ColumnTypes): Promise<ExecuteResult[][] | undefined> {
  const results = writes.map((statements) => new Array<ExecuteResult>(statements.length));
  const done: Promise<boolean>[] = [];
  const single = (i: number, step: number) =>
    done.push(
      runOne(client, writes[i]![step]!).then((result) => {
        results[i]![step] = result;
        return true;
      }),
    );
  for (const same of alike(writes)) {
    for (let step = 0; step < writes[same[0]!]!.length; step++) {
      const statements = same.map((i) => writes[i]![step]!);
      const shape = same.length > 1 ? multiRowOf(statements[0]!.sql) : null;
      const text = shape && distinct(shape, statements) ? (rows: number) => shape.text(rows, types.of(shape.table)) : undefined;
      for (let start = 0; start < same.length; ) {
        const size = text ? chunkSize(shape!, same.length - start) : 1;
        const sql = size > 1 ? text!(size) : undefined;
        if (sql === undefined) {
          single(same[start]!, step);
          start++;
          continue;
        }
        const indexes = same.slice(start, start + size);
        done.push(
          runRows(client, shape!, sql, statements.slice(start, start + size)).then((changes) => {
            if (!changes) return false;
            for (const [k, i] of indexes.entries()) results[i]![step] = { changes: changes[k]! };
            return true;
          }),
        );
        start += size;
      }
    }
  }
  const told = await Promise.all(done.map((d) => d.catch(() => false)));
  return told.every(Boolean) ? results : undefined;
}

/** The writes' indexes, those made of the same statement texts together, in the order first seen. */
function alike(writes: readonly (readonly SqlStatement[])[]): number[][] {
  const groups = new Map<string, number[]>();
  for (const [i, statements] of writes.entries()) {
    const key = statements.map((s) => s.sql).join('\0');
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  }
  return [...groups.values()];
}

/** True when every row's identity is a distinct string, so a returned value names one row (else they run one after another, in order). */
function distinct(shape: MultiRow, statements: readonly SqlStatement[]): boolean {
  const values = statements.map((s) => s.params?.[shape.identity.param]);
  return values.every((v) => typeof v === 'string') && new Set(values).size === values.length;
}

/** The largest power of two of rows, within the limits, that `remaining` rows fill. */
function chunkSize(shape: MultiRow, remaining: number): number {
  const most = Math.min(MOST_ROWS, Math.floor(MOST_PARAMS / shape.columns), remaining);
  return 2 ** Math.floor(Math.log2(Math.max(1, most)));
}

/** One statement on `client`: its `changes`. */
export async function runOne(client: pg.PoolClient, statement: SqlStatement): Promise<ExecuteResult> {
  const result = await client.query(namedQuery(statement.sql, statement.params ?? []));
  return { changes: result.rowCount ?? 0 };
}

/** One multi-row statement: each row's `changes`, by the identities it returned; undefined when one names no row. */
async function runRows(client: pg.PoolClient, shape: MultiRow, sql: string, statements: readonly SqlStatement[]): Promise<number[] | undefined> {
  const params: SqlValue[] = statements.flatMap((s) => s.params ?? []);
  const { rows } = await client.query<Record<string, unknown>>(namedQuery(sql, params));
  const returned = new Set(rows.map((row) => row[shape.identity.column]));
  const changes = statements.map((s) => (returned.has(s.params![shape.identity.param]) ? 1 : 0));
  return changes.reduce<number>((sum, n) => sum + n, 0) === rows.length ? changes : undefined;
}
