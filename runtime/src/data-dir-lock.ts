import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import sqlite3 from 'sqlite3';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { makePrivateDir, makePrivateFile } from './data-dir.js';

/** File whose SQLite lock marks the data dir as taken. */
export const LOCK_FILE = 'switchboard.lock';
/** Who holds the lock: pid, host and start time, for the refusal message. */
export const HOLDER_FILE = 'switchboard.pid';

interface Holder {
  pid: number;
  host: string;
  startedAt: string;
}

/**
 * An exclusive lock on a data dir, held for the life of one server. The lock is SQLite's own file
 * lock (fcntl on POSIX, LockFileEx on Windows) on `switchboard.lock`, taken in exclusive locking
 * mode, so the kernel drops it when the process dies — a `kill -9` leaves nothing that blocks the
 * next start, and a reused pid cannot fake a live holder. The pid file only names the holder.
 */
export class DataDirLock {
  private constructor(
    readonly dir: string,
    private readonly db: sqlite3.Database,
  ) {}

  /** Takes the lock, or throws CONFLICT naming the dir, the holder's pid and what to do. */
  static async acquire(dataDir: string): Promise<DataDirLock> {
    const dir = resolve(dataDir);
    makePrivateDir(dir);
    makePrivateFile(join(dir, LOCK_FILE));
    const db = await open(join(dir, LOCK_FILE));
    try {
      // No busy timeout: a held lock answers SQLITE_BUSY at once. The journal stays in memory so
      // the lock leaves no side files; the one-row write takes the EXCLUSIVE lock and, in
      // exclusive locking mode, keeps it until the connection closes.
      await exec(
        db,
        'PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; ' +
          'BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY); COMMIT;',
      );
    } catch (err) {
      await close(db);
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' && (err as { code?: string }).code !== 'SQLITE_LOCKED') throw err;
      throw new SwitchboardError(ErrorCodes.CONFLICT, refusal(dir, readHolder(dir)), { cause: err });
    }
    const holder: Holder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
    const tmp = join(dir, `${HOLDER_FILE}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(holder) + '\n', { mode: 0o600 });
    renameSync(tmp, join(dir, HOLDER_FILE));
    return new DataDirLock(dir, db);
  }

  /** Releases the lock; the next server on this dir starts. */
  async release(): Promise<void> {
    if (readHolder(this.dir)?.pid === process.pid) rmSync(join(this.dir, HOLDER_FILE), { force: true });
    await close(this.db);
  }
}

function refusal(dir: string, holder: Holder | undefined): string {
  const who = holder
    ? `another Switchboard server (pid ${holder.pid} on ${holder.host}, started ${holder.startedAt})`
    : 'another Switchboard server (its pid is not recorded yet)';
  return (
    `Data dir ${dir} is in use by ${who}. Two servers on one data dir would each hold their own limits and ` +
    `actors over one store, so this one will not start. Stop the other server${holder ? ` (kill ${holder.pid})` : ''}, ` +
    `or start this one with another --data-dir (DATA_DIR).`
  );
}

function readHolder(dir: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(dir, HOLDER_FILE), 'utf8')) as Holder;
    return typeof parsed.pid === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function open(filename: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(filename, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (err) => (err ? reject(err) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

function close(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve) => db.close(() => resolve()));
}
