import pg from 'pg';
import type { Database, Dialect, ExecuteResult, SqlExecutor, SqlStatement, SqlValue } from '../database.js';
import { PgGroupCommit, held } from './group-commit.js';
import { toNumbered, writeQuery } from './placeholders.js';
import { childSpan, SpanKind, tracing } from '../../tracing.js';

/** Counts (`COUNT`, integer `SUM`: int8) and money (`NUMERIC`) come back as numbers, as from SQLite. */
const parsers: Record<number, (value: string) => unknown> = {
  [pg.types.builtins.INT8]: Number,
  [pg.types.builtins.NUMERIC]: Number,
};
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => parsers[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  connectionString: string;
  /** Most connections the pool opens; at least 2 (a lock holder and its work). */
  maxConnections?: number;
}

type Queryable = pg.Pool | pg.PoolClient;

/**
 * Group commits that may run at once (see PgGroupCommit). One: two at once took the same agents' rows
 * (inbox cursors, conversation summaries) in different orders and deadlocked, 16–32 times a minute under
 * the cluster bench, each costing PostgreSQL's 1 s deadlock_timeout and the batch replayed one write at a
 * time; one commit at a time takes whatever queued meanwhile, so batches grow and commits get fewer.
 */
const COMMITTERS = 1;

/**
 * PostgreSQL through `pg` with a pool. Reads outside a transaction run on any pooled connection in
 * autocommit. Writes (`execute`, `executeAll`) go through a group commit: those that arrive while
 * others are being committed share the next transaction, each resolving only once it is committed
 * (a busy node runs one transaction for many messages, not one or more per message). `transaction`
 * takes one connection of its own for BEGIN … COMMIT.
 */
/** Longer than any healthy transaction stays idle (they are pipelined), short enough that a frozen node cannot hold a partition's takeover for long. */
const IDLE_IN_TRANSACTION_MS = 10_000;

export class PostgresDatabase implements Database {
  readonly dialect: Dialect = 'postgres';
  readonly #pool: pg.Pool;
  readonly #commits: PgGroupCommit;
  #closed = false;

  constructor(options: PostgresOptions) {
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: Math.max(2, options.maxConnections ?? 10),
      types,
      // A transaction left open by a frozen process (SIGSTOP, a stalled VM) ends after this: its fenced
      // writes hold the partition's fence row, which the next holder waits for (repositories/tenures.ts).
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      // A group commit's statements go out together instead of one round trip each (pg's pipeline mode):
      // a queued query is written at once, its answer read in order.
      pipeline: true,
    });
    // An idle connection the server dropped is reported here; the pool replaces it. Without a
    // listener the error would end the process.
    this.#pool.on('error', () => undefined);
    this.#commits = new PgGroupCommit(this.#pool, COMMITTERS);
  }

  async query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return rows<T>(this.#open(), sql, params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await rows<T>(this.#open(), sql, params))[0];
  }

  /** A single write, committed with whatever else is queued (see PgGroupCommit). */
  async execute(sql: string, params: readonly SqlValue[] = []): Promise<ExecuteResult> {
    return (await this.executeAll([{ sql, params }]))[0]!;
  }

  async executeAll(statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
    this.#open();
    if (statements.length === 0) return [];
    if (tracing.on) return childSpan('store commit', SpanKind.CLIENT, commitAttributes(statements.length), () => this.#commits.submit(statements));
    return this.#commits.submit(statements);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    if (tracing.on) return childSpan('store transaction', SpanKind.CLIENT, commitAttributes(), () => this.#transaction(work));
    return this.#transaction(work);
  }

  async #transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.#open().connect();
    let broken = false;
    const lost = held(client, () => (broken = true));
    try {
      await client.query('BEGIN');
      // A client runs its queries one after another, in the order issued.
      const tx: SqlExecutor = {
        dialect: 'postgres',
        query: (sql, params = []) => rows(client, sql, params),
        get: async (sql, params = []) => (await rows(client, sql, params))[0],
        execute: (sql, params = []) => run(client, sql, params),
      } as SqlExecutor;
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      lost();
      client.release(broken);
    }
  }

  async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const client = await this.#open().connect();
    let broken = false;
    const lost = held(client, () => (broken = true));
    try {
      // A session lock, held by this connection while `work` uses others.
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
      }
    } finally {
      lost();
      client.release(broken);
    }
  }

  async ping(): Promise<void> {
    await this.#open().query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  #open(): pg.Pool {
    if (this.#closed) throw new Error('The store is closed.');
    return this.#pool;
  }
}

async function rows<T>(on: Queryable, sql: string, params: readonly SqlValue[]): Promise<T[]> {
  return (await on.query({ text: toNumbered(sql), values: params as unknown[] })).rows as T[];
}

async function run(on: Queryable, sql: string, params: readonly SqlValue[]): Promise<ExecuteResult> {
  return { changes: (await on.query(writeQuery(sql, params))).rowCount ?? 0 };
}

/** A commit's span attributes: the database, and how many statements it groups. */
function commitAttributes(statements?: number): Record<string, string | number> {
  return { 'db.system.name': 'postgresql', ...(statements === undefined ? {} : { 'db.operation.batch.size': statements }) };
}
