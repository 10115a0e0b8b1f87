import sqlite3 from 'sqlite3';
import { makePrivateFile } from '../../data-dir.js';

/** How far an online copy has come, in database pages. */
export interface CopyProgress {
  readonly copiedPages: number;
  readonly totalPages: number;
}

/** The part of node-sqlite3's Backup (sqlite3_backup_*) used here; its typings leave it out. */
interface SqliteBackup {
  step(pages: number, callback: (err: Error | null) => void): void;
  finish(callback?: (err: Error | null) => void): void;
  readonly completed: boolean;
  readonly remaining: number;
  readonly pageCount: number;
}

/** Pages copied per step: 4 MiB of 4 KiB pages, so progress is reported while a large store is copied. */
const PAGES_PER_STEP = 1024;

/**
 * Copies a SQLite database that a running server is writing into `target`, consistently, with SQLite's
 * online backup API. The copy is of one moment: a read transaction opened before the first step pins the
 * snapshot (in WAL mode the server's writers go on beside it), so the steps neither restart when the
 * server commits nor mix two moments. Every commit made before this call is in the copy.
 */
export async function copyLiveDatabase(source: string, target: string, onProgress?: (progress: CopyProgress) => void): Promise<CopyProgress> {
  const db = await open(source, sqlite3.OPEN_READONLY);
  try {
    await exec(db, 'PRAGMA busy_timeout = 10000; BEGIN');
    // The first read takes the snapshot the whole copy is made from.
    await new Promise<void>((resolve, reject) => db.get('SELECT count(*) FROM sqlite_schema', (err) => (err ? reject(err) : resolve())));
    makePrivateFile(target);
    const backup = await new Promise<SqliteBackup>((resolve, reject) => {
      const made: SqliteBackup = (db as unknown as { backup(file: string, cb: (err: Error | null) => void): SqliteBackup }).backup(target, (err) =>
        err ? reject(err) : resolve(made),
      );
    });
    try {
      while (!backup.completed) {
        await new Promise<void>((resolve, reject) => backup.step(PAGES_PER_STEP, (err) => (err ? reject(err) : resolve())));
        onProgress?.({ copiedPages: backup.pageCount - backup.remaining, totalPages: backup.pageCount });
      }
      return { copiedPages: backup.pageCount, totalPages: backup.pageCount };
    } finally {
      await new Promise<void>((resolve) => backup.finish(() => resolve()));
    }
  } finally {
    await exec(db, 'COMMIT').catch(() => undefined);
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

/** What a database file holds, as far as a restore needs to know before putting it in place. */
export interface DatabaseFileReport {
  /** Undefined for a sound file; else what SQLite's `quick_check`, or opening the file, said. */
  readonly problem?: string;
  /** The highest migration applied (0 when none). */
  readonly schemaVersion: number;
}

/** Checks a database file with SQLite's `quick_check` and reads its schema version, without changing it. */
export async function inspectDatabaseFile(path: string): Promise<DatabaseFileReport> {
  let db: sqlite3.Database;
  try {
    db = await open(path, sqlite3.OPEN_READONLY);
  } catch (err) {
    return { problem: (err as Error).message, schemaVersion: 0 };
  }
  const all = <T>(sql: string) => new Promise<T[]>((resolve, reject) => db.all(sql, (err, rows: T[]) => (err ? reject(err) : resolve(rows))));
  try {
    const check = (await all<{ quick_check: string }>('PRAGMA quick_check')).map((r) => r.quick_check).join('; ');
    if (check !== 'ok') return { problem: check, schemaVersion: 0 };
    const [row] = await all<{ version: number | null }>("SELECT max(version) AS version FROM schema_version");
    return { schemaVersion: row?.version ?? 0 };
  } catch (err) {
    return { problem: (err as Error).message, schemaVersion: 0 };
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

function open(filename: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(filename, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}
