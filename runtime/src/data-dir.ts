import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import type { Logger } from './logger.js';

/**
 * The data dir holds message bodies, keys and recordings, so what Switchboard creates there is for
 * its own user only: folders 0700, files 0600 (before the umask, which can only tighten them).
 */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Creates `path` empty with mode 0600 when missing, or narrows an existing one to 0600. SQLite gives
 * a database's -wal, -shm and journal files the mode of the database file, so this covers them too.
 */
export function makePrivateFile(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
}

/**
 * Logs one warning when an existing data dir is open to its group or to others. The dir is not
 * changed: an operator may have chosen its mode (a shared volume, a backup user), and the files
 * Switchboard writes in it are 0600 either way.
 */
export function warnIfDataDirOpen(dir: string, logger: Logger): void {
  if (process.platform === 'win32') return; // no POSIX modes to read
  let mode: number;
  try {
    mode = statSync(dir).mode & 0o777;
  } catch {
    return;
  }
  if ((mode & 0o077) === 0) return;
  logger.warn(
    { dataDir: dir, mode: mode.toString(8).padStart(4, '0') },
    `data dir ${dir} is readable by other users (mode ${mode.toString(8).padStart(4, '0')}); it holds message bodies and keys: chmod 700 ${dir}`,
  );
}
