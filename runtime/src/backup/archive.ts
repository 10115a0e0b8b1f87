import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';

/**
 * A backup of an embedded data dir is one gzipped tar: `manifest.json`, the store (`switchboard.db`, an
 * online copy), the store key (`secret.key`, unless SECRET_KEY held it), and the `recordings/` and
 * `voice-messages/` folders. Laid out as a data dir is, so `tar -xzf` alone also gives one back.
 */
export const MANIFEST_FILE = 'manifest.json';
export const STORE_FILE = 'switchboard.db';
export const KEY_FILE = 'secret.key';
export const RECORDINGS = 'recordings';
export const VOICE_MESSAGES = 'voice-messages';

/** What a data dir's backup holds besides the manifest, in the order it is written. */
export const CONTENT = [STORE_FILE, KEY_FILE, RECORDINGS, VOICE_MESSAGES] as const;

/** The format this code writes and reads; a later format gets a new number. */
export const FORMAT = 'switchboard-backup';
export const FORMAT_VERSION = 1;

/** The first entry of a backup: what it is, when it was taken, and how to check its store. */
export interface BackupManifest {
  readonly format: typeof FORMAT;
  readonly formatVersion: typeof FORMAT_VERSION;
  /** The Switchboard version that took it. */
  readonly switchboardVersion: string;
  /** When the store's copy was taken: every commit before this is in it. */
  readonly createdAt: string;
  /** The store's highest migration. */
  readonly schemaVersion: number;
  readonly store: { readonly bytes: number; readonly sha256: string };
  /** Whether `secret.key` is in the backup; false when SECRET_KEY (a setting) sealed the store's secrets. */
  readonly secretKey: boolean;
  /** Recording and voice-message files in the backup. */
  readonly recordings: number;
  readonly voiceMessages: number;
}

/** An entry a backup may hold: the manifest, the store, the key, or a file in one of the two folders. */
export function isBackupEntry(path: string): boolean {
  const name = path.replace(/^\.\//, '').replace(/\/$/, '');
  if (name === MANIFEST_FILE || name === STORE_FILE || name === KEY_FILE || name === RECORDINGS || name === VOICE_MESSAGES) return true;
  return /^(recordings|voice-messages)\/[A-Za-z0-9_-]+\.wav$/.test(name);
}

/** The manifest's text read back, checked; a refusal says what the file is not. */
export function parseManifest(text: string | undefined, file: string): BackupManifest {
  if (text === undefined) throw damaged(file, 'it holds no manifest.json, so it is not a Switchboard backup');
  let manifest: Partial<BackupManifest>;
  try {
    manifest = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw damaged(file, 'its manifest.json is not JSON');
  }
  if (manifest.format !== FORMAT) throw damaged(file, 'its manifest.json does not describe a Switchboard backup');
  if (manifest.formatVersion !== FORMAT_VERSION) {
    throw new SwitchboardError(
      ErrorCodes.VALIDATION_FAILED,
      `${file} is a Switchboard backup of format ${String(manifest.formatVersion)} (made by version ${manifest.switchboardVersion ?? 'unknown'}); this version reads format ${FORMAT_VERSION}. Restore it with the version that made it, or a later one.`,
    );
  }
  if (typeof manifest.store?.sha256 !== 'string' || typeof manifest.store.bytes !== 'number') throw damaged(file, 'its manifest.json does not describe the store');
  return manifest as BackupManifest;
}

/** A backup that cannot be read: what is wrong with it, and that nothing was changed. */
export function damaged(file: string, reason: string, cause?: unknown): SwitchboardError {
  return new SwitchboardError(
    ErrorCodes.MALFORMED_PAYLOAD,
    `${file} cannot be restored: ${reason}. The file may be truncated or damaged; nothing was written. Take a new backup, or restore another copy.`,
    { cause },
  );
}

/** A file's SHA-256, hex, read as a stream. */
export function sha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

/** Bytes as MiB with one decimal (KiB below one MiB), for progress lines. */
export function mib(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
