import { dirname } from 'node:path';
import sqlite3 from 'sqlite3';
import { makePrivateDir, makePrivateFile } from '../../data-dir.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export interface SqliteOptions {
  /** File path, or ':memory:'. */
  filename: string;
  synchronous?: 'FULL' | 'NORMAL';
  /** How often the WAL is checkpointed from its own connection (default 500 ms). */
  checkpointIntervalMs?: number;
}

/**
 * The connections of a SQLite store: the one writer, a read-only one (the same for ':memory:'), and
 * the one that checkpoints the WAL (none for ':memory:').
 */
export interface SqliteConnections {
  readonly writer: sqlite3.Database;
  readonly reader: sqlite3.Database;
  readonly checkpointer?: WalCheckpointer;
}

/**
 * WAL pages past which the writer's own commit checkpoints: the bound on the WAL (32 MiB of 4 KiB
 * pages) should the checkpointer fall behind, 8× SQLite's default, which the checkpointer keeps it under.
 */
const WRITER_AUTOCHECKPOINT_PAGES = 8_000;

/**
 * Opens the writer (WAL, foreign keys, a busy timeout) and the reader, creating the file's folder
 * (0700) and the file (0600; SQLite gives -wal and -shm the database file's mode).
 */
export async function openConnections(options: SqliteOptions): Promise<SqliteConnections> {
  if (options.filename !== ':memory:') {
    makePrivateDir(dirname(options.filename));
    makePrivateFile(options.filename);
  }
  const writer = await connect(options.filename, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE);
  // Parallel mode: statements handed over together run back to back on libuv's threads, instead of
  // one main-thread round trip (~100 µs here) each. Where order matters the code awaits it.
  const synchronous = options.synchronous ?? 'FULL';
  await exec(
    writer,
    `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous}; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES};`,
  );
  if (options.filename === ':memory:') return { writer, reader: writer };
  const reader = await connect(options.filename, sqlite3.OPEN_READONLY);
  await exec(reader, 'PRAGMA busy_timeout = 5000; PRAGMA query_only = ON;');
  return { writer, reader, checkpointer: await WalCheckpointer.open({ filename: options.filename, synchronous, intervalMs: options.checkpointIntervalMs }) };
}

export function closeConnection(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));
}

function connect(filename: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(filename, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}
