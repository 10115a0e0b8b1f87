import { chmodSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { extract } from 'tar';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { DataDirLock, HOLDER_FILE, LOCK_FILE } from '../data-dir-lock.js';
import { makePrivateDir } from '../data-dir.js';
import { inspectDatabaseFile } from '../store/sqlite/online-backup.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import { CONTENT, MANIFEST_FILE, STORE_FILE, damaged, isBackupEntry, mib, parseManifest, sha256, type BackupManifest } from './archive.js';

export interface RestoreOptions {
  /** The backup file. */
  readonly from: string;
  /** The data dir to restore into: new or empty, unless `replace`. */
  readonly dataDir: string;
  /** Replace the store, key, recordings and voice messages of a data dir that holds some (`--force`). */
  readonly replace?: boolean;
  readonly progress?: (line: string) => void;
}

export interface RestoreSummary {
  readonly dataDir: string;
  readonly manifest: BackupManifest;
}

/** What a server leaves in a data dir besides its content: the lock and the holder's pid. */
const BOOKKEEPING = new Set([LOCK_FILE, HOLDER_FILE]);
/** What a restore replaces: the content, and the store's side files that belong to the store it replaces. */
const REPLACED = [...CONTENT, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`, `${STORE_FILE}-journal`];

/**
 * `switchboard restore`: puts a backup back into a data dir, holding the data dir's lock throughout, so a
 * server using it makes the restore refuse and no server starts on it meanwhile. The backup is unpacked
 * and checked (manifest, the store's checksum and SQLite's quick_check, its schema against this version's)
 * in a folder inside the data dir, and only then moved into place; a backup that fails a check leaves
 * the data dir as it was (or absent, if the restore made it).
 */
export async function restoreDataDir(options: RestoreOptions): Promise<RestoreSummary> {
  const from = resolve(options.from);
  if (!existsSync(from) || !statSync(from).isFile()) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No backup file at ${from}: name the file \`switchboard backup --to\` wrote.`);
  const dir = resolve(options.dataDir);
  const madeDir = !existsSync(dir);
  const hadLockFile = existsSync(join(dir, LOCK_FILE));
  let lock: DataDirLock;
  try {
    lock = await DataDirLock.acquire(dir);
  } catch (err) {
    if ((err as { code?: string }).code !== ErrorCodes.CONFLICT) throw err;
    throw new SwitchboardError(
      ErrorCodes.CONFLICT,
      `Data dir ${dir} is in use by a running Switchboard server${holderPid(dir)}: a restore would replace the store under it. Stop that server first, or restore into another --data-dir.`,
      { cause: err },
    );
  }
  let staging: string | undefined;
  let done = false;
  try {
    const present = readdirSync(dir).filter((name) => !BOOKKEEPING.has(name));
    if (present.length > 0 && !options.replace) {
      throw new SwitchboardError(
        ErrorCodes.CONFLICT,
        `Data dir ${dir} is not empty (it holds ${present.slice(0, 4).join(', ')}${present.length > 4 ? ', …' : ''}): restore into a new or empty folder, or add --force to replace its store, key, recordings and voice messages with the backup's.`,
      );
    }
    options.progress?.(`Restoring ${from} into ${dir}`);
    staging = await mkdtemp(join(dir, '.restore-'));
    const manifest = await unpack(from, staging, options.progress);
    await check(from, staging, manifest);
    await putInPlace(dir, staging);
    done = true;
    return { dataDir: dir, manifest };
  } finally {
    if (staging) await rm(staging, { recursive: true, force: true });
    await lock.release();
    if (!done && madeDir) await rm(dir, { recursive: true, force: true });
    else if (!done && !hadLockFile) await rm(join(dir, LOCK_FILE), { force: true });
  }
}

/** Unpacks the backup's known entries into `staging` (files 0600, folders 0700) and reads its manifest. */
async function unpack(from: string, staging: string, progress: ((line: string) => void) | undefined): Promise<BackupManifest> {
  let files = 0;
  let bytes = 0;
  let shown = Date.now();
  try {
    await extract({
      file: from,
      cwd: staging,
      strict: true,
      filter: (path) => isBackupEntry(path),
      onReadEntry: (entry) => {
        files++;
        bytes += entry.size ?? 0;
        if (Date.now() - shown >= 1000) {
          shown = Date.now();
          progress?.(`unpacking: ${files} files (${mib(bytes)})`);
        }
      },
    });
  } catch (err) {
    throw damaged(from, `it is not a readable gzipped tar (${(err as Error).message})`, err);
  }
  for (const entry of readdirSync(staging, { recursive: true, encoding: 'utf8' })) {
    const path = join(staging, entry);
    chmodSync(path, statSync(path).isDirectory() ? 0o700 : 0o600);
  }
  const manifestPath = join(staging, MANIFEST_FILE);
  return parseManifest(existsSync(manifestPath) ? readFileSync(manifestPath, 'utf8') : undefined, from);
}

/** The store is the one the manifest names, sound, and of a schema this version knows. */
async function check(from: string, staging: string, manifest: BackupManifest): Promise<void> {
  const store = join(staging, STORE_FILE);
  if (!existsSync(store)) throw damaged(from, `it holds no ${STORE_FILE}`);
  if (statSync(store).size !== manifest.store.bytes || (await sha256(store)) !== manifest.store.sha256) {
    throw damaged(from, `its ${STORE_FILE} does not match the checksum in its manifest`);
  }
  const report = await inspectDatabaseFile(store);
  if (report.problem) throw damaged(from, `its ${STORE_FILE} fails SQLite's check (${report.problem})`);
  const known = Math.max(...MIGRATIONS.map((m) => m.version));
  if (report.schemaVersion > known) {
    throw new SwitchboardError(
      ErrorCodes.VALIDATION_FAILED,
      `${from} holds a store of schema ${report.schemaVersion}, made by Switchboard ${manifest.switchboardVersion}; this version knows schema ${known}. Restore it with ${manifest.switchboardVersion} or later; nothing was written.`,
    );
  }
}

/**
 * Moves the unpacked content into the data dir. What it replaces (with --force) is moved aside first
 * and put back should a move fail, so the data dir ends with one whole store, never parts of two.
 */
async function putInPlace(dir: string, staging: string): Promise<void> {
  const aside = join(staging, 'replaced');
  makePrivateDir(aside);
  const movedAside: string[] = [];
  const placed: string[] = [];
  try {
    for (const name of REPLACED) {
      if (!existsSync(join(dir, name))) continue;
      await rename(join(dir, name), join(aside, name));
      movedAside.push(name);
    }
    for (const name of CONTENT) {
      if (!existsSync(join(staging, name))) continue;
      await rename(join(staging, name), join(dir, name));
      placed.push(name);
    }
  } catch (err) {
    for (const name of placed) await rm(join(dir, name), { recursive: true, force: true });
    for (const name of movedAside) await rename(join(aside, name), join(dir, name));
    throw err;
  }
}

function holderPid(dir: string): string {
  try {
    const { pid } = JSON.parse(readFileSync(join(dir, HOLDER_FILE), 'utf8')) as { pid?: number };
    return typeof pid === 'number' ? ` (pid ${pid})` : '';
  } catch {
    return '';
  }
}
