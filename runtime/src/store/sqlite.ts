import { Worker } from 'node:worker_threads';
import sqlite3 from 'sqlite3';
import { workerEntry } from '../worker-entry.js';
import type { Database, ExecuteResult, SqlExecutor, SqlStatement, SqlValue } from './database.js';
import { all, closeConnection, connect, exec, openWriterConnection, SqliteWriter, type Writer } from './sqlite-writer.js';
import { batcher, fromWireError, revive, type WireError, type WriterReply, type WriterRequest } from './writer-protocol.js';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  filename: string;
  synchronous?: 'FULL' | 'NORMAL';
}

/**
 * SQLite through `sqlite3`. Writes go to a worker thread that owns the writing connection (group
 * commit, transactions; see SqliteWriter), so that its hand-offs to SQLite are not queued behind
 * the main thread's request handling; reads go to a second connection on the main thread (WAL lets
 * it read while the writer works). An in-memory database has one connection, in process.
 */
export async function openSqlite(options: SqliteOptions): Promise<Database> {
  const synchronous = options.synchronous ?? 'FULL';
  if (options.filename === ':memory:') {
    const connection = await openWriterConnection(':memory:', synchronous);
    return new SqliteDatabase(new SqliteWriter(connection), connection);
  }
  const writer = await WorkerWriter.start(options.filename, synchronous);
  try {
    const reader = await connect(options.filename, sqlite3.OPEN_READONLY);
    await exec(reader, 'PRAGMA busy_timeout = 5000; PRAGMA query_only = ON;');
    return new SqliteDatabase(writer, reader);
  } catch (err) {
    await writer.close();
    throw err;
  }
}

class SqliteDatabase implements Database {
  #closed = false;

  constructor(
    private readonly writer: Writer,
    private readonly reader: sqlite3.Database,
  ) {}

  query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return all<T>(this.reader, sql, params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await all<T>(this.reader, sql, params))[0];
  }

  execute(sql: string, params: readonly SqlValue[] = []): Promise<ExecuteResult> {
    return this.executeAll([{ sql, params }]).then((results) => results[0]!);
  }

  executeAll(statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
    if (this.#closed) return Promise.reject(new Error('The store is closed.'));
    return this.writer.executeAll(statements);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('The store is closed.'));
    return this.writer.transaction(work);
  }

  async ping(): Promise<void> {
    await this.get('SELECT 1 AS ok');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.writer.close();
    if (this.writer instanceof WorkerWriter) await closeConnection(this.reader);
  }
}

/** The writer worker, seen from the main thread: requests out, replies in, batched per turn. */
class WorkerWriter implements Writer {
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  readonly #send: (request: WriterRequest) => void;
  #nextId = 0;
  #nextTx = 0;
  #exited: Error | undefined;

  private constructor(private readonly worker: Worker) {
    this.#send = batcher((requests) => worker.postMessage(requests));
    worker.on('message', (replies: WriterReply[]) => {
      for (const r of replies) {
        const pending = this.#pending.get(r.id);
        this.#pending.delete(r.id);
        if (r.ok) pending?.resolve(revive(r.value));
        else pending?.reject(fromWireError(r.error));
      }
    });
    worker.on('exit', () => this.#fail(new Error('The store writer thread has stopped.')));
    worker.on('error', (err) => this.#fail(err));
  }

  /** Starts the thread and waits until its connection is open. */
  static async start(filename: string, synchronous: 'FULL' | 'NORMAL'): Promise<WorkerWriter> {
    const worker = new Worker(workerEntry(import.meta.url, './writer-worker-source.mjs', ['./store/writer-worker.js', './writer-worker.js']), {
      workerData: { filename, synchronous },
    });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: 'ready' | { failed: WireError }) => {
        worker.off('error', reject);
        if (message === 'ready') resolve();
        else reject(fromWireError(message.failed));
      };
      worker.once('message', onMessage);
      worker.once('error', reject);
    });
    return new WorkerWriter(worker);
  }

  executeAll(statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
    return this.#call<ExecuteResult[]>((id) => ({ kind: 'write', id, statements }));
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const tx = ++this.#nextTx;
    await this.#call((id) => ({ kind: 'begin', id, tx }));
    const statement = <R>(op: 'run' | 'all', sql: string, params: readonly SqlValue[] = []) => this.#call<R>((id) => ({ kind: 'statement', id, tx, op, sql, params }));
    const executor: SqlExecutor = {
      query: (sql, params) => statement('all', sql, params),
      get: async (sql, params) => (await statement<never[]>('all', sql, params))[0],
      execute: (sql, params) => statement('run', sql, params),
    };
    let result: T;
    try {
      result = await work(executor);
    } catch (err) {
      await this.#call((id) => ({ kind: 'end', id, tx, commit: false })).catch(() => undefined);
      throw err;
    }
    await this.#call((id) => ({ kind: 'end', id, tx, commit: true }));
    return result;
  }

  async close(): Promise<void> {
    if (this.#exited) return;
    await this.#call((id) => ({ kind: 'close', id }));
    // The thread ends by itself once its port is closed.
    await new Promise<void>((resolve) => (this.#exited ? resolve() : this.worker.once('exit', () => resolve())));
  }

  #call<T>(request: (id: number) => WriterRequest): Promise<T> {
    if (this.#exited) return Promise.reject(this.#exited);
    const id = ++this.#nextId;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#send(request(id));
    });
  }

  #fail(err: Error): void {
    this.#exited ??= err;
    for (const pending of this.#pending.values()) pending.reject(err);
    this.#pending.clear();
  }
}
