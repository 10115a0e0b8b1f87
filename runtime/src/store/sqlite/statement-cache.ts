import type sqlite3 from 'sqlite3';
import type { ExecuteResult, SqlValue } from '../database.js';

/**
 * Prepared statements of one connection, kept by SQL text. A fresh `db.run` costs three trips to
 * SQLite's thread one after another (prepare, run, finalize); a kept statement costs one. A statement
 * runs one thing at a time, so concurrent runs of the same SQL each take a kept statement or prepare
 * another; up to `perSql` are kept for each SQL text, and the SQL texts used least recently beyond
 * `limit` have theirs finalized. `perSql` is above the concurrency a hot statement sees (a read per
 * request at 50 requests in flight): kept at 8, 0.84 of such reads prepared and finalized a statement
 * of their own, and a read cost 44 µs of CPU instead of 16.
 */
export class StatementCache {
  readonly #idle = new Map<string, sqlite3.Statement[]>();
  /** Runs not yet finished: clearing waits for them, as their statements come back afterwards. */
  readonly #running = new Set<Promise<unknown>>();
  /** Set by `clear`: the connection is closing, so no statement may be prepared on it any more. */
  #closing = false;
  #prepared = 0;

  constructor(
    private readonly db: sqlite3.Database,
    private readonly limit = 256,
    private readonly perSql = 64,
  ) {}

  run(sql: string, params: readonly SqlValue[] = []): Promise<ExecuteResult> {
    return this.#use<ExecuteResult>(sql, (statement, done) =>
      statement.run(params as unknown[], function (this: sqlite3.RunResult, err: Error | null) {
        done(err, { changes: this.changes });
      }),
    );
  }

  /** Statements prepared so far: each is a trip to SQLite's thread that a kept statement saves. */
  get prepared(): number {
    return this.#prepared;
  }

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.#use<T[]>(sql, (statement, done) => statement.all(params as unknown[], (err: Error | null, rows: unknown[]) => done(err, rows as T[])));
  }

  /**
   * Refuses new runs, waits for every run under way (those begun while it waits too), then finalizes
   * every kept statement: call before closing the connection, which SQLite refuses (SQLITE_BUSY) while
   * a statement is not finalized.
   */
  async clear(): Promise<void> {
    this.#closing = true;
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    const statements = [...this.#idle.values()].flat();
    this.#idle.clear();
    await Promise.all(statements.map((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))));
  }

  /** Runs `work` on a kept statement for `sql`, or on a newly prepared one. */
  #use<T>(sql: string, work: (statement: sqlite3.Statement, done: (err: Error | null, value: T) => void) => void): Promise<T> {
    if (this.#closing) return Promise.reject(new Error('The store is closed.'));
    const running = new Promise<T>((resolve, reject) => {
      // A failed prepare is reported to its own callback only (the run queued behind it is dropped).
      const used = this.#idle.get(sql)?.pop() ?? this.#prepare(sql, reject);
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

  #prepare(sql: string, reject: (err: Error) => void): sqlite3.Statement {
    this.#prepared += 1;
    return this.db.prepare(sql, (err: Error | null) => err && reject(err));
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
