import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import sqlite3 from 'sqlite3';
import type { Database, ExecuteResult, SqlExecutor, SqlStatement, SqlValue } from './database.js';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  filename: string;
  synchronous?: 'FULL' | 'NORMAL';
}

/**
 * SQLite through `sqlite3`. One connection writes: group commits and transactions take turns on it
 * (a queue), so a transaction's statements never interleave with another's; a second connection
 * serves reads outside transactions (WAL lets it read while the writer works).
 */
export async function openSqlite(options: SqliteOptions): Promise<Database> {
  if (options.filename !== ':memory:') mkdirSync(dirname(options.filename), { recursive: true });
  const writer = await connect(options.filename, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE);
  // Parallel mode: statements handed over together run back to back on libuv's threads, instead of
  // one main-thread round trip (~100 µs here) each. Where order matters the code awaits it.
  await exec(writer, `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${options.synchronous ?? 'FULL'}; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;`);
  const reader = options.filename === ':memory:' ? writer : await connect(options.filename, sqlite3.OPEN_READONLY);
  if (reader !== writer) await exec(reader, 'PRAGMA busy_timeout = 5000; PRAGMA query_only = ON;');
  return new SqliteDatabase(writer, reader);
}

/** A write waiting for the next group commit: one statement, or an atomic group of them. */
interface PendingWrite {
  readonly statements: readonly SqlStatement[];
  resolve(results: ExecuteResult[]): void;
  reject(err: unknown): void;
}

type Outcome = { ok: true; results: ExecuteResult[] } | { ok: false; err: unknown };

/** SQLite's default limit on host parameters per statement is 32,766; stay below it. */
const MAX_PARAMS = 32_000;

/** A single-row INSERT whose rows can be sent to SQLite as one multi-row statement. */
interface InsertShape {
  /** `INSERT … VALUES ` */
  readonly head: string;
  /** `(?, ?, …)` */
  readonly row: string;
  /** What follows the row: nothing, or a conflict clause that skips rows. */
  readonly tail: string;
  readonly columns: number;
  /** Rows may be skipped (`OR IGNORE`, `ON CONFLICT … DO NOTHING`), so `changes` is per row. */
  readonly tolerant: boolean;
  /** The first column: a tolerant insert returns it to tell which rows went in. */
  readonly firstColumn: string;
}

const INSERT_SHAPE =
  /^(\s*INSERT\s+(OR\s+IGNORE\s+)?INTO\s+\w+\s*\(\s*(\w+)[\w\s,]*\)\s*VALUES\s*)(\((?:\s*\?\s*,)*\s*\?\s*\))(\s*(ON\s+CONFLICT\s*(?:\([\w\s,]+\))?\s*DO\s+NOTHING)?\s*)$/i;
const shapes = new Map<string, InsertShape | null>();

/** The coalescible shape of `sql`, once per distinct statement text; null when it has none. */
function insertShape(sql: string): InsertShape | null {
  let shape = shapes.get(sql);
  if (shape !== undefined) return shape;
  const m = INSERT_SHAPE.exec(sql);
  shape = m ? { head: m[1]!, firstColumn: m[3]!, row: m[4]!, tail: m[5]!, columns: m[4]!.split('?').length - 1, tolerant: Boolean(m[2] || m[6]) } : null;
  shapes.set(sql, shape);
  return shape;
}

class SqliteDatabase implements Database {
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;
  #batch: PendingWrite[] = [];
  readonly #direct: SqlExecutor;
  readonly #statements: StatementCache;
  /** The reader's kept statements: a read costs one trip to SQLite's thread instead of three. */
  readonly #reads: StatementCache;

  constructor(
    private readonly writer: sqlite3.Database,
    private readonly reader: sqlite3.Database,
  ) {
    this.#statements = new StatementCache(writer);
    this.#reads = reader === writer ? this.#statements : new StatementCache(reader);
    this.#direct = orderedExecutor(this.#statements);
  }

  query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.#reads.all<T>(sql, params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.#reads.all<T>(sql, params))[0];
  }

  /**
   * Group commit: single writes that arrive while the writer is busy are committed together in one
   * transaction (one fsync), each still resolving only after that commit. A failing statement fails
   * alone; SQLite rolls back just that statement.
   */
  execute(sql: string, params: readonly SqlValue[] = []): Promise<ExecuteResult> {
    return this.executeAll([{ sql, params }]).then((results) => results[0]!);
  }

  executeAll(statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
    if (this.#closed) return Promise.reject(new Error('The store is closed.'));
    return new Promise<ExecuteResult[]>((resolve, reject) => {
      this.#batch.push({ statements, resolve, reject });
      if (this.#batch.length === 1) void this.#serial(() => this.#flush());
    });
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#serial(async () => {
      await this.#statements.run('BEGIN IMMEDIATE');
      try {
        const result = await work(this.#direct);
        await this.#statements.run('COMMIT');
        return result;
      } catch (err) {
        await this.#statements.run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  async ping(): Promise<void> {
    await this.get('SELECT 1 AS ok');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#tail.catch(() => undefined);
    await this.#statements.clear();
    if (this.reader !== this.writer) {
      await this.#reads.clear();
      await closeConnection(this.reader);
    }
    await closeConnection(this.writer);
  }

  /**
   * Commits everything queued since the last flush in one transaction. Writes that share a flush
   * were issued concurrently (none waited for another's commit), so they are applied as a batch, not
   * in arrival order. The fast path hands them to SQLite together; if a statement of an atomic group
   * fails there, the transaction is rolled back and the batch is applied again one write at a time,
   * each group inside a savepoint, so that the group fails alone and all of it.
   */
  async #flush(): Promise<void> {
    const batch = this.#batch;
    this.#batch = [];
    const wrap = batch.length > 1 || batch[0]!.statements.length > 1;
    let outcomes: Map<PendingWrite, Outcome> | undefined;
    try {
      if (wrap) await this.#statements.run('BEGIN IMMEDIATE');
      outcomes = await this.#applyTogether(batch);
      if (!outcomes) {
        await this.#statements.run('ROLLBACK');
        await this.#statements.run('BEGIN IMMEDIATE');
        outcomes = await this.#applyOneByOne(batch);
      }
      if (wrap) await this.#statements.run('COMMIT');
    } catch (err) {
      if (wrap) await this.#statements.run('ROLLBACK').catch(() => undefined);
      for (const write of batch) write.reject(err);
      return;
    }
    for (const write of batch) {
      const outcome = outcomes.get(write)!;
      if (outcome.ok) write.resolve(outcome.results);
      else write.reject(outcome.err);
    }
  }

  /**
   * The fast path. Same-shaped single INSERTs become multi-row statements (see `#runInserts`); other
   * single statements and the groups (each group's statements in order) run side by side. Resolves
   * undefined when a group's statement failed, or a conflict-tolerant insert could not tell which of
   * its rows went in: the caller must undo the transaction and replay it one write at a time.
   */
  async #applyTogether(batch: readonly PendingWrite[]): Promise<Map<PendingWrite, Outcome> | undefined> {
    const outcomes = new Map<PendingWrite, Outcome>();
    const inserts = new Map<InsertShape, PendingWrite[]>();
    const singles: PendingWrite[] = [];
    const groups: PendingWrite[] = [];
    for (const write of batch) {
      const shape = write.statements.length === 1 ? insertShape(write.statements[0]!.sql) : null;
      if (write.statements.length !== 1) groups.push(write);
      else if (!shape) singles.push(write);
      else if (inserts.has(shape)) inserts.get(shape)!.push(write);
      else inserts.set(shape, [write]);
    }
    const coalesced: [InsertShape, PendingWrite[]][] = [];
    for (const [shape, writes] of inserts) {
      if (writes.length === 1) singles.push(writes[0]!);
      else coalesced.push([shape, writes]);
    }
    let replay = false;
    await Promise.all([
      ...coalesced.map(async ([shape, writes]) => {
        if (!(await this.#runInserts(shape, writes, outcomes))) replay = true;
      }),
      this.#runEach(singles, outcomes),
      ...groups.map(async (group) => {
        const results: ExecuteResult[] = [];
        for (const statement of group.statements) {
          if (replay) return;
          try {
            results.push(await this.#statements.run(statement.sql, statement.params));
          } catch {
            replay = true;
            return;
          }
        }
        outcomes.set(group, { ok: true, results });
      }),
    ]);
    return replay ? undefined : outcomes;
  }

  /** The careful path: one write after another, each group in a savepoint of its own. */
  async #applyOneByOne(batch: readonly PendingWrite[]): Promise<Map<PendingWrite, Outcome>> {
    const outcomes = new Map<PendingWrite, Outcome>();
    for (const write of batch) {
      if (write.statements.length === 1) await this.#runEach([write], outcomes);
      else outcomes.set(write, await this.#runGroup(write.statements));
    }
    return outcomes;
  }

  /** Hands single statements to SQLite all at once; each succeeds or fails alone. */
  async #runEach(writes: readonly PendingWrite[], outcomes: Map<PendingWrite, Outcome>): Promise<void> {
    await Promise.all(
      writes.map((w) =>
        this.#statements.run(w.statements[0]!.sql, w.statements[0]!.params).then(
          (result) => outcomes.set(w, { ok: true, results: [result] }),
          (err: unknown) => outcomes.set(w, { ok: false, err }),
        ),
      ),
    );
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
  async #runInserts(shape: InsertShape, writes: readonly PendingWrite[], outcomes: Map<PendingWrite, Outcome>): Promise<boolean> {
    if (shape.tolerant && !firstValuesDistinct(writes)) {
      // The same id twice: one after another, so the first issued is the one that goes in.
      for (const w of writes) await this.#runEach([w], outcomes);
      return true;
    }
    const largest = 2 ** Math.floor(Math.log2(Math.max(1, Math.floor(MAX_PARAMS / shape.columns))));
    const chunks: PendingWrite[][] = [];
    for (let start = 0; start < writes.length; ) {
      const size = Math.min(largest, 2 ** Math.floor(Math.log2(writes.length - start)));
      chunks.push(writes.slice(start, start + size));
      start += size;
    }
    const told = await Promise.all(chunks.map((chunk) => this.#runChunk(shape, chunk, outcomes)));
    return told.every(Boolean);
  }

  /** One multi-row INSERT of `#runInserts`; false when a tolerant one cannot tell its rows apart. */
  async #runChunk(shape: InsertShape, chunk: readonly PendingWrite[], outcomes: Map<PendingWrite, Outcome>): Promise<boolean> {
    if (chunk.length === 1) {
      await this.#runEach(chunk, outcomes);
      return true;
    }
    const sql = `${shape.head}${Array(chunk.length).fill(shape.row).join(',')}${shape.tail}`;
    const params = chunk.flatMap((w) => w.statements[0]!.params ?? []);
    let inserted: (w: PendingWrite) => boolean = () => true;
    try {
      if (shape.tolerant) {
        const rows = await this.#statements.all<Record<string, SqlValue>>(`${sql} RETURNING ${shape.firstColumn}`, params);
        const returned = new Set(rows.map((row) => row[shape.firstColumn]));
        inserted = (w) => returned.has(w.statements[0]!.params![0]!);
        if (chunk.filter(inserted).length !== rows.length) return false;
      } else {
        await this.#statements.run(sql, params);
      }
    } catch {
      await this.#runEach(chunk, outcomes);
      return true;
    }
    for (const w of chunk) outcomes.set(w, { ok: true, results: [{ changes: inserted(w) ? 1 : 0 }] });
    return true;
  }

  /** Runs a group inside a savepoint, statement after statement, kept or undone together. */
  async #runGroup(statements: readonly SqlStatement[]): Promise<Outcome> {
    await this.#statements.run('SAVEPOINT grp');
    const results: ExecuteResult[] = [];
    try {
      for (const s of statements) results.push(await this.#statements.run(s.sql, s.params));
    } catch (err) {
      await this.#statements.run('ROLLBACK TO grp');
      await this.#statements.run('RELEASE grp');
      return { ok: false, err };
    }
    await this.#statements.run('RELEASE grp');
    return { ok: true, results };
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closed && this.#batch.length === 0) return Promise.reject(new Error('The store is closed.'));
    const next = this.#tail.then(task, task);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * The executor a transaction's work gets: its statements run in the order they were issued, even
 * when the work does not await one before issuing the next (the writer runs in parallel mode).
 */
function orderedExecutor(statements: StatementCache): SqlExecutor {
  let tail: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(task: () => Promise<T>): Promise<T> => {
    const next = tail.then(task, task);
    tail = next.catch(() => undefined);
    return next;
  };
  return {
    query: (sql, params) => inOrder(() => statements.all(sql, params)),
    get: (sql, params) => inOrder(async () => (await statements.all(sql, params))[0]),
    execute: (sql, params) => inOrder(() => statements.run(sql, params)),
  } as SqlExecutor;
}

/**
 * Prepared statements of one connection, kept by SQL text. A fresh `db.run` costs three trips to
 * SQLite's thread one after another (prepare, run, finalize); a kept statement costs one. A statement
 * runs one thing at a time, so concurrent runs of the same SQL each take a kept statement or prepare
 * another; up to `perSql` are kept for each SQL text, and the SQL texts used least recently beyond
 * `limit` have theirs finalized.
 */
class StatementCache {
  readonly #idle = new Map<string, sqlite3.Statement[]>();
  /** Runs not yet finished: clearing waits for them, as their statements come back afterwards. */
  readonly #running = new Set<Promise<unknown>>();

  constructor(
    private readonly db: sqlite3.Database,
    private readonly limit = 256,
    private readonly perSql = 8,
  ) {}

  run(sql: string, params: readonly SqlValue[] = []): Promise<ExecuteResult> {
    return this.#use<ExecuteResult>(sql, (statement, done) =>
      statement.run(params as unknown[], function (this: sqlite3.RunResult, err: Error | null) {
        done(err, { changes: this.changes });
      }),
    );
  }

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.#use<T[]>(sql, (statement, done) => statement.all(params as unknown[], (err: Error | null, rows: unknown[]) => done(err, rows as T[])));
  }

  /** Waits for every run to finish, then finalizes every kept statement; call before closing the connection. */
  async clear(): Promise<void> {
    await Promise.allSettled([...this.#running]);
    const statements = [...this.#idle.values()].flat();
    this.#idle.clear();
    await Promise.all(statements.map((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))));
  }

  /** Runs `work` on a kept statement for `sql`, or on a newly prepared one. */
  #use<T>(sql: string, work: (statement: sqlite3.Statement, done: (err: Error | null, value: T) => void) => void): Promise<T> {
    const running = new Promise<T>((resolve, reject) => {
      // A failed prepare is reported to its own callback only (the run queued behind it is dropped).
      const used = this.#idle.get(sql)?.pop() ?? this.db.prepare(sql, (err: Error | null) => err && reject(err));
      work(used, (err, value) => {
        this.#give(sql, used, err);
        if (err) reject(err);
        else resolve(value);
      });
    });
    this.#running.add(running);
    const forget = () => this.#running.delete(running);
    running.then(forget, forget);
    return running;
  }

  #give(sql: string, statement: sqlite3.Statement, err: Error | null): void {
    const kept = this.#idle.get(sql) ?? [];
    // A statement that failed may not have prepared at all.
    if (err || kept.length >= this.perSql) {
      statement.finalize();
      return;
    }
    kept.push(statement);
    // Re-inserted, so that the Map's order is least recently used first.
    this.#idle.delete(sql);
    this.#idle.set(sql, kept);
    if (this.#idle.size > this.limit) {
      const [oldest, evicted] = this.#idle.entries().next().value as [string, sqlite3.Statement[]];
      this.#idle.delete(oldest);
      for (const s of evicted) s.finalize();
    }
  }
}

/** True when the rows' first values are distinct strings, so that a returned value names one row. */
function firstValuesDistinct(writes: readonly PendingWrite[]): boolean {
  const values = writes.map((w) => w.statements[0]!.params?.[0]);
  return values.every((v) => typeof v === 'string') && new Set(values).size === values.length;
}

function connect(filename: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(filename, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

function closeConnection(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
}
