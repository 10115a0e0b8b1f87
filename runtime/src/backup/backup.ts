import { copyFileSync, existsSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { create } from 'tar';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { makePrivateFile } from '../data-dir.js';
import type { Settings } from '../settings/schema.js';
import { copyLiveDatabase, inspectDatabaseFile } from '../store/sqlite/online-backup.js';
import { FORMAT, FORMAT_VERSION, KEY_FILE, MANIFEST_FILE, RECORDINGS, STORE_FILE, VOICE_MESSAGES, type BackupManifest, mib, sha256 } from './archive.js';

/** What a finished backup holds. */
export interface BackupSummary {
  readonly file: string;
  readonly bytes: number;
  readonly manifest: BackupManifest;
}

export interface BackupOptions {
  /** The backup file to write; it must not exist yet. */
  readonly to: string;
  /** The Switchboard version, for the manifest. */
  readonly version: string;
  /** A line of progress for a person watching (at most about one a second per phase). */
  readonly progress?: (line: string) => void;
}

const PROGRESS_EVERY_MS = 1000;

/**
 * `switchboard backup`: one file holding a consistent copy of an embedded data dir's store, taken while
 * a server may be serving from it (SQLite's online backup, see `copyLiveDatabase`), with the store key
 * and the recording and voice-message files. Written beside the target and renamed into place, so a
 * failed or interrupted backup never leaves a file that looks whole.
 */
export async function backupDataDir(settings: Settings, options: BackupOptions): Promise<BackupSummary> {
  if (settings.DATABASE_URL) {
    throw new SwitchboardError(
      ErrorCodes.CONFLICT,
      'DATABASE_URL is set: a cluster keeps its store in PostgreSQL, which `switchboard backup` does not copy. Back it up with pg_dump or pg_basebackup, and RECORDINGS_DIR with it (docs/cluster.md, "Backups").',
    );
  }
  const dir = resolve(settings.DATA_DIR);
  const database = join(dir, STORE_FILE);
  if (!existsSync(dir)) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `Data dir ${dir} does not exist: name the data dir the server runs with (--data-dir or DATA_DIR).`);
  if (!existsSync(database)) {
    throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No Switchboard store in ${dir} (no ${STORE_FILE}): name the data dir the server runs with (--data-dir or DATA_DIR).`);
  }
  const target = resolve(options.to);
  if (existsSync(target)) throw new SwitchboardError(ErrorCodes.CONFLICT, `${target} exists already: name a new file with --to, or move the old one away first.`);
  if (!existsSync(dirname(target))) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `The folder ${dirname(target)} does not exist: create it, or name a file in another folder with --to.`);
  const say = options.progress ?? (() => undefined);
  say(`Backing up ${dir} to ${target}`);

  // The pieces are gathered in a private folder beside the target (the same file system, so the
  // finished file is renamed into place), the audio folders linked in, not copied.
  const staging = await mkdtemp(join(dirname(target), `.${basename(target)}.`));
  try {
    const createdAt = new Date().toISOString();
    const started = Date.now();
    let shown = 0;
    const copied = await copyLiveDatabase(database, join(staging, STORE_FILE), ({ copiedPages, totalPages }) => {
      if (Date.now() - shown < PROGRESS_EVERY_MS || copiedPages === totalPages) return;
      shown = Date.now();
      say(`store: ${Math.round((copiedPages / totalPages) * 100)}% of ${totalPages} pages copied`);
    });
    const storeBytes = statSync(join(staging, STORE_FILE)).size;
    say(`store: copied (${mib(storeBytes)}, ${copied.totalPages} pages) in ${seconds(Date.now() - started)}, as of ${createdAt}`);
    const inspected = await inspectDatabaseFile(join(staging, STORE_FILE));
    if (inspected.problem) {
      throw new SwitchboardError(ErrorCodes.INTERNAL, `The copy of ${database} failed SQLite's check (${inspected.problem}): the store itself may be damaged. Run \`sqlite3 ${database} "PRAGMA integrity_check"\` with the server stopped.`);
    }

    // Listed after the store's copy: a recording is written before its row names it, so every file
    // the copy names is here. One written later is left out; one removed meanwhile is skipped.
    const secretKey = !settings.SECRET_KEY && existsSync(join(dir, KEY_FILE));
    if (secretKey) copyFileSync(join(dir, KEY_FILE), join(staging, KEY_FILE));
    const folders = { [RECORDINGS]: settings.RECORDINGS_DIR ? resolve(settings.RECORDINGS_DIR) : join(dir, RECORDINGS), [VOICE_MESSAGES]: join(dir, VOICE_MESSAGES) };
    const listed = new Set<string>();
    for (const [name, source] of Object.entries(folders)) {
      if (!existsSync(source)) continue;
      symlinkSync(source, join(staging, name), 'junction'); // a junction on Windows, which needs no privilege; a symlink elsewhere
      for (const file of readdirSync(source)) if (file.endsWith('.wav')) listed.add(`${name}/${file}`);
    }
    const count = (name: string) => [...listed].filter((p) => p.startsWith(`${name}/`)).length;
    const manifest: BackupManifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      switchboardVersion: options.version,
      createdAt,
      schemaVersion: inspected.schemaVersion,
      store: { bytes: storeBytes, sha256: await sha256(join(staging, STORE_FILE)) },
      secretKey,
      recordings: count(RECORDINGS),
      voiceMessages: count(VOICE_MESSAGES),
    };
    writeFileSync(join(staging, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });

    const archive = join(staging, 'backup.partial');
    makePrivateFile(archive);
    let files = 0;
    let bytes = 0;
    shown = Date.now();
    const problems: string[] = [];
    const entries = [MANIFEST_FILE, STORE_FILE, ...(secretKey ? [KEY_FILE] : []), ...Object.keys(folders).filter((name) => existsSync(join(staging, name)))];
    await create(
      {
        file: archive,
        cwd: staging,
        gzip: true,
        portable: true,
        follow: true,
        filter: (path, entry) => {
          const name = path.replace(/^\.\//, '');
          if (name.includes('/') && !listed.has(name)) return false;
          if (name.includes('/')) {
            files++;
            bytes += 'size' in entry ? entry.size : 0;
            if (Date.now() - shown >= PROGRESS_EVERY_MS) {
              shown = Date.now();
              say(`audio: ${files} of ${listed.size} files archived (${mib(bytes)})`);
            }
          }
          return true;
        },
        onwarn: (code, message, data) => {
          // A recording removed (its retention ran out) between the listing and its turn is simply not in the backup.
          if ((data as { code?: string } | undefined)?.code !== 'ENOENT') problems.push(`${message}`);
        },
      },
      entries,
    );
    if (problems.length > 0) throw new SwitchboardError(ErrorCodes.INTERNAL, `The backup could not read everything: ${problems.join('; ')}. Check the data dir's permissions and run it again.`);
    if (listed.size > 0) say(`audio: ${files} recording and voice-message files archived (${mib(bytes)})`);
    await rename(archive, target);
    return { file: target, bytes: (await stat(target)).size, manifest };
  } finally {
    // The links go first, by themselves: the folders they point at are the server's.
    for (const name of [RECORDINGS, VOICE_MESSAGES]) await unlink(join(staging, name)).catch(() => undefined);
    await rm(staging, { recursive: true, force: true });
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
