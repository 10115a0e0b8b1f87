import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import sqlite3 from 'sqlite3';
import type { Database, ExecuteResult, SqlExecutor, SqlValue } from './database.js';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  filename: string;
  synchronous?: 'FULL' | 'NORMAL';
}

/**
 * SQLite through `sqlite3`. One connection writes, serialised by a queue so that a transaction's
 * statements never interleave with another's; a second connection serves reads outside
 * transactions (WAL lets it read while the writer works).
 */
export async function openSqlite(options: SqliteOptions): Promise<Database> {
  if (options.filename !== ':memory:') mkdirSync(dirname(options.filename), { recursive: true });
  const writer = await connect(options.filename, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE);
  await exec(writer, `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${options.synchronous ?? 'FULL'}; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;`);
  const reader = options.filename === ':memory:' ? writer : await connect(options.filename, sqlite3.OPEN_READONLY);
  if (reader !== writer) await exec(reader, 'PRAGMA busy_timeout = 5000; PRAGMA query_only = ON;');
  return new SqliteDatabase(writer, reader);
}

class SqliteDatabase implements Database {
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;
  readonly #direct: SqlExecutor;

  constructor(
    private readonly writer: sqlite3.Database,
    private readonly reader: sqlite3.Database,
  ) {
    this.#direct = executor(writer);
  }

  query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return all<T>(this.reader, sql, params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await all<T>(this.reader, sql, params))[0];
  }

  execute(sql: string, params: readonly SqlValue[] = []): Promise<ExecuteResult> {
    return this.#serial(() => this.#direct.execute(sql, params));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#serial(async () => {
      await run(this.writer, 'BEGIN IMMEDIATE', []);
      try {
        const result = await work(this.#direct);
        await run(this.writer, 'COMMIT', []);
        return result;
      } catch (err) {
        await run(this.writer, 'ROLLBACK', []).catch(() => undefined);
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
    if (this.reader !== this.writer) await closeConnection(this.reader);
    await closeConnection(this.writer);
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('The store is closed.'));
    const next = this.#tail.then(task, task);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

function executor(db: sqlite3.Database): SqlExecutor {
  return {
    query: (sql, params = []) => all(db, sql, params),
    get: async (sql, params = []) => (await all(db, sql, params))[0],
    execute: (sql, params = []) => run(db, sql, params),
  } as SqlExecutor;
}

function connect(filename: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(filename, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

function all<T>(db: sqlite3.Database, sql: string, params: readonly SqlValue[]): Promise<T[]> {
  return new Promise((resolve, reject) =>
    db.all(sql, params as unknown[], (err, rows) => (err ? reject(err) : resolve(rows as T[]))),
  );
}

function run(db: sqlite3.Database, sql: string, params: readonly SqlValue[]): Promise<ExecuteResult> {
  return new Promise((resolve, reject) =>
    db.run(sql, params as unknown[], function (this: sqlite3.RunResult, err: Error | null) {
      if (err) reject(err);
      else resolve({ changes: this.changes });
    }),
  );
}

function closeConnection(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
}
