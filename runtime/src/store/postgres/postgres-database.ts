import pg from 'pg';
import type { Database, Dialect, ExecuteResult, SqlExecutor, SqlStatement, SqlValue } from '../database.js';
import { ColumnTypes } from './column-types.js';
import { runOne, runWrites } from './multi-row.js';
import { namedQuery } from './placeholders.js';
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
/** How long a pooled connection may stay unused before it is closed. */
const IDLE_CONNECTION_MS = 5 * 60_000;

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
      // A connection opened for a burst is kept through the pauses between bursts: pg's default closed it after
      // 10 s idle, and opening the next one cost PostgreSQL a backend start (5 % of its CPU in one bench profile).
      idleTimeoutMillis: IDLE_CONNECTION_MS,
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
  return (await on.query(namedQuery(sql, params))).rows as T[];
}

async function run(on: Queryable, sql: string, params: readonly SqlValue[]): Promise<ExecuteResult> {
  return { changes: (await on.query(namedQuery(sql, params))).rowCount ?? 0 };
}

/** A commit's span attributes: the database, and how many statements it groups. */
function commitAttributes(statements?: number): Record<string, string | number> {
  return { 'db.system.name': 'postgresql', ...(statements === undefined ? {} : { 'db.operation.batch.size': statements }) };
}

/** A write waiting for the next group commit: one statement, or an atomic group of them. */
interface PendingWrite {
  readonly statements: readonly SqlStatement[];
  resolve(results: ExecuteResult[]): void;
  reject(err: unknown): void;
}

type Outcome = { ok: true; results: ExecuteResult[] } | { ok: false; err: unknown };

/** Writes one commit takes at most; the rest wait for the next one. */
const MOST_PER_COMMIT = 256;

/**
 * Group commit for PostgreSQL: writes (single statements and atomic groups) that arrive while
 * earlier ones are being committed are committed together, in one transaction on one connection,
 * each resolving only after that commit. At most `committers` commits run at once; a write that
 * finds one free starts a commit at once, so a lone write waits for nothing. A commit of one
 * single statement runs it in autocommit (one round trip). When a statement of a shared commit
 * fails, PostgreSQL aborts the transaction: it is rolled back and its writes are committed again
 * one at a time, each in a transaction of its own, so that a failing write fails alone and whole,
 * and the others as if they had never met it.
 */
export class PgGroupCommit {
  #queue: PendingWrite[] = [];
  #running = 0;
  readonly #types: ColumnTypes;

  constructor(
    private readonly pool: pg.Pool,
    private readonly committers: number,
  ) {
    this.#types = new ColumnTypes(pool);
  }

  submit(statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
    return new Promise<ExecuteResult[]>((resolve, reject) => {
      this.#queue.push({ statements, resolve, reject });
      if (this.#running < this.committers) void this.#commitWhileQueued();
    });
  }

  async #commitWhileQueued(): Promise<void> {
    this.#running++;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MOST_PER_COMMIT);
        await this.#commit(batch);
      }
    } finally {
      this.#running--;
    }
  }

  async #commit(batch: readonly PendingWrite[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      for (const write of batch) write.reject(err);
      return;
    }
    let broken = false;
    const lost = held(client, () => (broken = true));
    try {
      if (batch.length === 1 && batch[0]!.statements.length === 1) {
        const write = batch[0]!;
        try {
          write.resolve([await runOne(client, write.statements[0]!)]);
        } catch (err) {
          // A statement the server refused leaves the connection fit; any other failure does not.
          broken = !isServerError(err);
          write.reject(err);
        }
        return;
      }
      let outcomes: Outcome[] | undefined;
      try {
        outcomes = await together(client, batch, this.#types);
      } catch (err) {
        // The connection failed, or COMMIT did: whether the writes are in is unknown, and none was acknowledged.
        broken = true;
        for (const write of batch) write.reject(err);
        return;
      }
      if (!outcomes) {
        outcomes = [];
        for (const write of batch) {
          if (broken) {
            outcomes.push({ ok: false, err: new Error('The store connection failed before this write was committed.') });
            continue;
          }
          try {
            outcomes.push({ ok: true, results: await alone(client, write.statements) });
          } catch (err) {
            if (err instanceof Unusable || !isServerError(err)) broken = true;
            outcomes.push({ ok: false, err });
          }
        }
      }
      for (const [i, write] of batch.entries()) {
        const outcome = outcomes[i]!;
        if (outcome.ok) write.resolve(outcome.results);
        else write.reject(outcome.err);
      }
    } finally {
      lost();
      client.release(broken);
    }
  }
}

/** An error the server answered (it has a SQLSTATE), as opposed to a failed connection. */
function isServerError(err: unknown): boolean {
  return typeof (err as { code?: unknown } | null)?.code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);
}

/**
 * pg sends each query as one write (a system call); queued together on a pipelined connection, a
 * commit's forty queries were forty writes. Corked, what `queue` sends leaves as one.
 */
function corked<T>(client: pg.PoolClient, queue: () => T): T {
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
  stream?.cork?.();
  try {
    return queue();
  } finally {
    stream?.uncork?.();
  }
}

/**
 * Every write of the batch in one transaction. Resolves their results once committed; undefined
 * when a statement failed (the transaction is rolled back: nothing of the batch is in); throws when
 * the connection or the COMMIT failed. BEGIN, the statements (alike ones as multi-row statements,
 * multi-row.ts) are queued on the connection at once and leave in one write; it runs them in order.
 */
async function together(client: pg.PoolClient, batch: readonly PendingWrite[], types: ColumnTypes): Promise<Outcome[] | undefined> {
  const sent = corked(client, () => {
    const lock = inboxLock(batch);
    return [
      client.query('BEGIN'),
      lock ? client.query(namedQuery(lock.sql, lock.params ?? [])).then(() => true, () => false) : true,
      runWrites(
        client,
        batch.map((write) => write.statements),
        types,
      ),
    ] as const;
  });
  // A failed BEGIN is a failed connection: it throws.
  const [, taken, results] = await Promise.all(sent);
  if (!taken || !results) {
    await client.query('ROLLBACK');
    return undefined;
  }
  await client.query('COMMIT');
  return results.map((r) => ({ ok: true, results: r }));
}

/**
 * The first statement of a shared commit: the inbox rows of the agents its writes append to, locked in
 * agent order. Every append takes its agent's inbox row (the cursor) and a conversation summary; two
 * commits (a gateway's inbound messages, a runtime node's sends) taking those of one agent, or of two
 * agents, in different orders deadlocked, each costing PostgreSQL's 1 s `deadlock_timeout` and a replay
 * one write at a time (`test/postgres-commit-order.test.ts`). Taken first and in order, one commit waits
 * for the other instead. An agent's first append creates its row and is not covered.
 */
function inboxLock(batch: readonly PendingWrite[]): SqlStatement | undefined {
  const agents = [...new Set(batch.flatMap((write) => write.statements.flatMap((s) => (s.inboxOf === undefined ? [] : [s.inboxOf]))))].sort();
  if (agents.length === 0) return undefined;
  return { sql: 'SELECT agent_id FROM inbox_state WHERE agent_id IN (SELECT jsonb_array_elements_text(?::jsonb)) ORDER BY agent_id FOR UPDATE', params: [JSON.stringify(agents)] };
}

/** Thrown when a connection could not undo a transaction: it is not fit for the next write. */
class Unusable extends Error {}

/** One write in a transaction of its own (a single statement in autocommit). */
async function alone(client: pg.PoolClient, statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
  if (statements.length === 1) return [await runOne(client, statements[0]!)];
  await client.query('BEGIN');
  try {
    const results: ExecuteResult[] = [];
    for (const s of statements) results.push(await runOne(client, s));
    await client.query('COMMIT');
    return results;
  } catch (err) {
    await client.query('ROLLBACK').catch((undo: unknown) => {
      throw new Unusable('the connection failed during a write', { cause: undo });
    });
    throw err;
  }
}

/**
 * While a client is checked out, the pool does not listen for its errors, and pg emits the server's
 * end of a connection idle between statements as an 'error' event: unheard, that ends the process
 * (a runtime node cut off from PostgreSQL died of it). Heard, the client is released as broken and the
 * next statement on it fails. Returns what stops listening.
 */
function held(client: pg.PoolClient, onLost: () => void): () => void {
  const listener = () => onLost();
  client.on('error', listener);
  return () => void client.removeListener('error', listener);
}
