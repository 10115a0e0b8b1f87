import sqlite3 from 'sqlite3';

/** What one `PRAGMA wal_checkpoint(PASSIVE)` reported: pages in the WAL, and how many of them are in the database file now. */
export interface CheckpointResult {
  readonly walPages: number;
  readonly checkpointedPages: number;
}

export interface WalCheckpointerOptions {
  readonly filename: string;
  readonly synchronous: 'FULL' | 'NORMAL';
  /** How often the WAL is copied back into the database file. */
  readonly intervalMs?: number | undefined;
}

/**
 * Copies the WAL back into the database file from a connection of its own, on a timer: a passive
 * checkpoint runs beside the writer (it waits for no one and no one waits for it), so the commit that
 * crosses SQLite's auto-checkpoint threshold no longer does the copy and its fsyncs itself while every
 * group commit queued behind it waits (the stall of over 100 ms seen in ingest's p99). The writer keeps
 * a far higher threshold as the bound on the WAL's size should this connection fall behind.
 */
export class WalCheckpointer {
  readonly #db: sqlite3.Database;
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> | undefined;
  #last: CheckpointResult | undefined;
  #checkpoints = 0;

  private constructor(db: sqlite3.Database, intervalMs: number) {
    this.#db = db;
    this.#timer = setInterval(() => void this.checkpoint(), intervalMs);
    this.#timer.unref();
  }

  static async open(options: WalCheckpointerOptions): Promise<WalCheckpointer> {
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const opened = new sqlite3.Database(options.filename, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(opened)));
    });
    await new Promise<void>((resolve, reject) =>
      db.exec(`PRAGMA synchronous = ${options.synchronous}; PRAGMA busy_timeout = 0;`, (err) => (err ? reject(err) : resolve())),
    );
    return new WalCheckpointer(db, options.intervalMs ?? 500);
  }

  /** The last checkpoint's report, and how many have run: what a test or an operator reads. */
  get last(): CheckpointResult | undefined {
    return this.#last;
  }

  get checkpoints(): number {
    return this.#checkpoints;
  }

  /** One passive checkpoint, unless one is running already (resolves when that one ends). */
  checkpoint(): Promise<void> {
    this.#running ??= new Promise<void>((resolve) => {
      this.#db.get('PRAGMA wal_checkpoint(PASSIVE)', (err: Error | null, row?: { log: number; checkpointed: number }) => {
        // A busy database or a failed pass is tried again at the next tick; the writer's threshold bounds the WAL meanwhile.
        if (!err && row) {
          this.#last = { walPages: row.log, checkpointedPages: row.checkpointed };
          this.#checkpoints += 1;
        }
        this.#running = undefined;
        resolve();
      });
    });
    return this.#running;
  }

  /** Stops the timer, waits for a checkpoint under way, and closes the connection. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
    await new Promise<void>((resolve, reject) => this.#db.close((err) => (err ? reject(err) : resolve())));
  }
}
