import type pg from 'pg';
import type { ExecuteResult, SqlStatement, SqlValue } from '../database.js';
import { updateShape } from '../sqlite/update-coalescer.js';
import type { ColumnTypes } from './column-types.js';
import { namedQuery } from './placeholders.js';

/**
 * Multi-row statements for PostgreSQL's group commit: the same single-row INSERT, or UPDATE of a row
 * picked by key, issued by many writes of one commit runs as one statement (a `VALUES` list, a
 * `UNION ALL` of conditional selects, or an UPDATE joined to a `VALUES` list), so the server binds,
 * plans and runs one statement and the client sends and reads one, not one per row. Each statement
 * returns what names its rows (an INSERT its `id`, an UPDATE its keys), so each write still gets its
 * own `changes`. The SQLite store does the same (sqlite/insert-coalescer.ts, sqlite/update-coalescer.ts);
 * the UPDATE shapes are the same ones.
 */

/** A statement of many rows: its text for `rows` rows, and what tells its rows apart in its answer. */
interface MultiRow {
  readonly table: string;
  /** Parameters per row. */
  readonly columns: number;
  /** The parameters whose values, returned, name a row (an INSERT's `id`; an UPDATE's keys). */
  readonly keys: readonly number[];
  /** The columns `RETURNING` gives for them, in the same order. */
  readonly returning: readonly string[];
  /** The text for `rows` rows, its parameters cast where PostgreSQL cannot infer their types; undefined while the types are unknown. */
  text(rows: number, types: ReadonlyMap<string, string> | undefined): string | undefined;
}

const INSERT =
  /^\s*(INSERT\s+INTO\s+(\w+)\s*\(([\w\s,]+)\)\s*)(?:VALUES\s*(\((?:\s*\?\s*,)*\s*\?\s*\))|SELECT\s+((?:\?\s*,\s*)*\?)\s+(WHERE\s+[\s\S]+?))(\s+ON\s+CONFLICT\s*(?:\([\w\s,]+\))?\s*DO\s+NOTHING)?\s*$/i;
/** What a conditional row's WHERE must not hold to be one arm of a `UNION ALL`. */
const NOT_ONE_ARM = /\b(UNION|INTERSECT|EXCEPT|RETURNING|ORDER|LIMIT|OFFSET|GROUP|FETCH)\b|;/i;
const UPDATE = /^\s*UPDATE\s+(\w+)\s+SET\s+([\s\S]+?)\s+WHERE\s/i;
/** Most parameters in one statement (PostgreSQL's limit is 65,535). */
const MOST_PARAMS = 65_000;
/** Most rows in one statement. */
const MOST_ROWS = 256;

const shapes = new Map<string, MultiRow | null>();

/** The multi-row form of `sql`, once per distinct text; null when it has none. */
export function multiRowOf(sql: string): MultiRow | null {
  let shape = shapes.get(sql);
  if (shape === undefined) {
    shape = hasQuotedPlaceholder(sql) ? null : (insertOf(sql) ?? updateOf(sql));
    shapes.set(sql, shape);
  }
  return shape;
}

function insertOf(sql: string): MultiRow | null {
  const m = INSERT.exec(sql);
  if (!m) return null;
  const [, head, table, list, values, selected, condition, conflict] = m as unknown as [string, string, string, string, string?, string?, string?, string?];
  const columns = list.split(',').map((c) => c.trim());
  const identity = columns.includes('id') ? 'id' : columns[0]!;
  const tail = `${conflict ?? ''} RETURNING ${identity}`;
  const keys = [columns.indexOf(identity)];
  if (values !== undefined) {
    // In an INSERT's own VALUES list each parameter takes its column's type.
    return { table, columns: count(values), keys, returning: [identity], text: (rows) => `${head}VALUES ${Array(rows).fill(values).join(', ')}${tail}` };
  }
  if (NOT_ONE_ARM.test(condition!) || count(selected!) !== columns.length) return null;
  const arm = `SELECT ${selected} ${condition}`;
  return {
    table,
    columns: count(arm),
    keys,
    returning: [identity],
    text(rows, types) {
      // A UNION ALL types its columns from its arms: the first arm's parameters carry their columns' types.
      const casts = columns.map((c) => types?.get(c));
      if (casts.some((t) => t === undefined)) return undefined;
      const first = `SELECT ${casts.map((t) => `?::${t}`).join(', ')} ${condition}`;
      return `${head}${[first, ...Array(rows - 1).fill(arm)].join(' UNION ALL ')}${tail}`;
    },
  };
}

function updateOf(sql: string): MultiRow | null {
  const shape = updateShape(sql);
  const m = UPDATE.exec(sql);
  if (!shape || !m) return null;
  const set = setColumns(m[2]!);
  if (!set) return null;
  const paramColumns = [...set, ...shape.keys.map((k) => k.column)];
  if (paramColumns.length !== shape.columns) return null;
  const names = Array.from({ length: shape.columns }, (_, i) => `p${i + 1}`).join(', ');
  const row = `(${Array(shape.columns).fill('?').join(', ')})`;
  const returning = shape.keys.map((k) => k.column);
  return {
    table: m[1]!,
    columns: shape.columns,
    keys: shape.keys.map((k) => k.param),
    returning,
    text(rows, types) {
      // A VALUES list outside an INSERT types its columns from its rows: the first row's parameters carry theirs.
      const casts = paramColumns.map((c) => types?.get(c));
      if (casts.some((t) => t === undefined)) return undefined;
      const first = `(${casts.map((t) => `?::${t}`).join(', ')})`;
      return `WITH v (${names}) AS (VALUES ${[first, ...Array(rows - 1).fill(row)].join(', ')}) ${shape.head} FROM v WHERE ${shape.where} RETURNING ${returning.join(', ')}`;
    },
  };
}

/** The column each of a SET clause's parameters is assigned to (`a = ?, b = COALESCE(?, b)`: a, b); null when one is not `column = …`. */
function setColumns(set: string): string[] | null {
  const columns: string[] = [];
  for (const assignment of topLevel(set)) {
    const m = /^\s*(\w+)\s*=([\s\S]*)$/.exec(assignment);
    if (!m) return null;
    for (let i = count(m[2]!); i > 0; i--) columns.push(m[1]!);
  }
  return columns;
}

/** `text` split at the commas outside parentheses. */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
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
      run(client, writes[i]![step]!).then((result) => {
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

/** True when no two rows name the same row by their keys (else they run one after another, in order). */
function distinct(shape: MultiRow, statements: readonly SqlStatement[]): boolean {
  const keys = statements.map((s) => keyOf(shape.keys.map((p) => s.params?.[p])));
  return new Set(keys).size === keys.length;
}

/** The largest power of two of rows, within the limits, that `remaining` rows fill. */
function chunkSize(shape: MultiRow, remaining: number): number {
  const most = Math.min(MOST_ROWS, Math.floor(MOST_PARAMS / shape.columns), remaining);
  return 2 ** Math.floor(Math.log2(Math.max(1, most)));
}

function keyOf(values: readonly unknown[]): string {
  return JSON.stringify(values.map((v) => (v === null || v === undefined ? null : String(v))));
}

async function run(client: pg.PoolClient, statement: SqlStatement): Promise<ExecuteResult> {
  const result = await client.query(namedQuery(statement.sql, statement.params ?? []));
  return { changes: result.rowCount ?? 0 };
}

/** One multi-row statement: each row's `changes`, by the keys it returned; undefined when a returned key names no row. */
async function runRows(client: pg.PoolClient, shape: MultiRow, sql: string, statements: readonly SqlStatement[]): Promise<number[] | undefined> {
  const params: SqlValue[] = statements.flatMap((s) => s.params ?? []);
  const { rows } = await client.query<Record<string, unknown>>(namedQuery(sql, params));
  const keys = statements.map((s) => keyOf(shape.keys.map((p) => s.params?.[p])));
  const changes = new Map(keys.map((k) => [k, 0]));
  for (const row of rows) {
    const key = keyOf(shape.returning.map((c) => row[c]));
    const seen = changes.get(key);
    if (seen === undefined) return undefined;
    changes.set(key, seen + 1);
  }
  return keys.map((k) => changes.get(k)!);
}
