import type sqlite3 from 'sqlite3';
import type { Database, Dialect, ExecuteResult, SqlExecutor, SqlStatement, SqlValue } from '../database.js';
import { closeConnection, type SqliteConnections } from './connection.js';
import { GroupCommit } from './group-commit.js';
import { StatementCache } from './statement-cache.js';
import type { WalCheckpointer } from './wal-checkpointer.js';
import { childSpan, SpanKind, tracing } from '../../tracing.js';

/**
 * SQLite through `sqlite3`. One connection writes: group commits and transactions take turns on it
 * (a queue), so a transaction's statements never interleave with another's; a second connection
 * serves reads outside transactions (WAL lets it read while the writer works).
 */
export class SqliteDatabase implements Database {
  readonly dialect: Dialect = 'sqlite';
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #writer: sqlite3.Database;
  readonly #reader: sqlite3.Database;
  readonly #direct: SqlExecutor;
  readonly #statements: StatementCache;
  /** The reader's kept statements: a read costs one trip to SQLite's thread instead of three. */
  readonly #reads: StatementCache;
  readonly #commits: GroupCommit;
  readonly #checkpointer: WalCheckpointer | undefined;

  constructor({ writer, reader, checkpointer }: SqliteConnections) {
    this.#writer = writer;
    this.#reader = reader;
    this.#checkpointer = checkpointer;
    this.#statements = new StatementCache(writer);
    this.#reads = reader === writer ? this.#statements : new StatementCache(reader);
    this.#direct = orderedExecutor(this.#statements);
    this.#commits = new GroupCommit(this.#statements, (flush) => void this.#serial(flush));
  }

  query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    if (this.#closed) return Promise.reject(new Error('The store is closed.'));
    return this.#reads.all<T>(sql, params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params))[0];
  }

  /** A single write, committed with whatever else is queued (see GroupCommit). */
  execute(sql: string, params: readonly SqlValue[] = []): Promise<ExecuteResult> {
    return this.executeAll([{ sql, params }]).then((results) => results[0]!);
  }

  executeAll(statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
    if (this.#closed) return Promise.reject(new Error('The store is closed.'));
    if (tracing.on) return childSpan('store commit', SpanKind.CLIENT, commitAttributes(statements.length), () => this.#commits.submit(statements));
    return this.#commits.submit(statements);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    if (tracing.on) return childSpan('store transaction', SpanKind.CLIENT, commitAttributes(), () => this.#transaction(work));
    return this.#transaction(work);
  }

  #transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
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

  /**
   * In this process, holders of one name take turns. Across processes the writer lock does the
   * work: each migration runs in a BEGIN IMMEDIATE transaction that checks its version first.
   */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const next = (this.#locks.get(name) ?? Promise.resolve()).then(work, work);
    const settled = next.catch(() => undefined);
    this.#locks.set(name, settled);
    void settled.then(() => this.#locks.get(name) === settled && this.#locks.delete(name));
    return next;
  }

  async ping(): Promise<void> {
    await this.get('SELECT 1 AS ok');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Writes queued before the close are committed, including a flush queued while the last one ran.
    for (let tail: Promise<unknown> | undefined; tail !== this.#tail; ) {
      tail = this.#tail;
      await tail.catch(() => undefined);
    }
    await this.#statements.clear();
    await this.#checkpointer?.close();
    if (this.#reader !== this.#writer) {
      await this.#reads.clear();
      await closeConnection(this.#reader);
    }
    await closeConnection(this.#writer);
  }

  /** Gives `task` the writer after every task queued before it. */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closed && this.#commits.pending === 0) return Promise.reject(new Error('The store is closed.'));
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
    dialect: 'sqlite',
    query: (sql, params) => inOrder(() => statements.all(sql, params)),
    get: (sql, params) => inOrder(async () => (await statements.all(sql, params))[0]),
    execute: (sql, params) => inOrder(() => statements.run(sql, params)),
  } as SqlExecutor;
}

/** A commit's span attributes: the database, and how many statements it groups. */
function commitAttributes(statements?: number): Record<string, string | number> {
  return { 'db.system.name': 'sqlite', ...(statements === undefined ? {} : { 'db.operation.batch.size': statements }) };
}
