import type pg from 'pg';
import type { ExecuteResult, SqlStatement } from '../database.js';
import { writeQuery } from './placeholders.js';

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

  constructor(
    private readonly pool: pg.Pool,
    private readonly committers: number,
  ) {}

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
          write.resolve([await autocommit(client, write.statements[0]!)]);
        } catch (err) {
          // A statement the server refused leaves the connection fit; any other failure does not.
          broken = !isServerError(err);
          write.reject(err);
        }
        return;
      }
      let outcomes: Outcome[] | undefined;
      try {
        outcomes = await together(client, batch);
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

async function autocommit(client: pg.PoolClient, statement: SqlStatement): Promise<ExecuteResult> {
  const result = await client.query(writeQuery(statement.sql, statement.params ?? []));
  return { changes: result.rowCount ?? 0 };
}

/**
 * Every write of the batch in one transaction. Resolves their results once committed; undefined
 * when a statement failed (the transaction is rolled back: nothing of the batch is in); throws when
 * the connection or the COMMIT failed. The statements are queued on the connection together (it
 * runs them in order), so the batch costs no wait between them on this side.
 */
async function together(client: pg.PoolClient, batch: readonly PendingWrite[]): Promise<Outcome[] | undefined> {
  await client.query('BEGIN');
  const pending = batch.map((write) => write.statements.map((s) => autocommit(client, s).catch((err: unknown) => ({ failed: err }))));
  const results: ExecuteResult[][] = [];
  let failed = false;
  for (const group of pending) {
    const done: ExecuteResult[] = [];
    for (const result of group) {
      const r = await result;
      if ('failed' in r) failed = true;
      else done.push(r);
    }
    results.push(done);
  }
  if (failed) {
    await client.query('ROLLBACK');
    return undefined;
  }
  await client.query('COMMIT');
  return results.map((r) => ({ ok: true, results: r }));
}

/** Thrown when a connection could not undo a transaction: it is not fit for the next write. */
class Unusable extends Error {}

/** One write in a transaction of its own (a single statement in autocommit). */
async function alone(client: pg.PoolClient, statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
  if (statements.length === 1) return [await autocommit(client, statements[0]!)];
  await client.query('BEGIN');
  try {
    const results: ExecuteResult[] = [];
    for (const s of statements) results.push(await autocommit(client, s));
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
export function held(client: pg.PoolClient, onLost: () => void): () => void {
  const listener = () => onLost();
  client.on('error', listener);
  return () => void client.removeListener('error', listener);
}
