import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { parseEnv } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { checkSettings, SETTING_KEYS } from '@switchboard/runtime';

/** The settings an env file holds, as text. */
export function readEnvFile(path: string): Record<string, string> {
  return existsSync(path) ? (parseEnv(readFileSync(path, 'utf8')) as Record<string, string>) : {};
}

const BARE = /^[A-Za-z0-9_./:@,+=%-]*$/;

/** One `KEY=value` line that `parseEnv` reads back as exactly `value`. */
function line(key: string, value: string): string {
  if (BARE.test(value)) return `${key}=${value}`;
  if (!value.includes("'")) return `${key}='${value}'`;
  if (!value.includes('"') && !value.includes('\\')) return `${key}="${value}"`;
  if (!value.includes('`')) return `${key}=\`${value}\``;
  throw refused(key, 'cannot hold single quotes, double quotes and backticks together');
}

function refused(key: string, why: string): SwitchboardError {
  return new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Setting ${key} ${why}.`, { details: [{ field: `settings.${key}`, message: why }] });
}

/**
 * An unknown setting is an unknown field of the request, as in any body: 400 BAD_REQUEST naming each
 * one (with the nearest known name), the known ones in each detail's `allowed`.
 */
function refuseUnknown(updates: Record<string, unknown>): void {
  const unknown = Object.keys(updates).filter((key) => !SETTING_KEYS.includes(key));
  if (unknown.length === 0) return;
  const named = unknown.map((key) => {
    const near = nearest(key);
    return near ? `${key} (did you mean ${near}?)` : key;
  });
  throw new SwitchboardError(
    ErrorCodes.BAD_REQUEST,
    `Unknown setting${unknown.length > 1 ? 's' : ''} ${named.join(', ')} in settings; the known settings are listed in docs/configuration.md.`,
    { details: unknown.map((key) => ({ field: `settings.${key}`, message: `${key} is not a known setting`, allowed: SETTING_KEYS })) },
  );
}

/** The known setting a misspelt name most likely meant: same letters in another case, or at most two edits away. */
function nearest(key: string): string | undefined {
  const upper = key.toUpperCase();
  let best: { key: string; distance: number } | undefined;
  for (const known of SETTING_KEYS) {
    const distance = known === upper ? 0 : editDistance(upper, known);
    if (distance <= 2 && (!best || distance < best.distance)) best = { key: known, distance };
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * Checks updates against the settings schema (known keys only, each value valid, no line breaks
 * or control characters) merged over what the file holds now; returns the merged file contents.
 */
export function mergeSettings(current: Record<string, string>, updates: Record<string, unknown>): Record<string, string> {
  refuseUnknown(updates);
  const merged = { ...current };
  for (const [key, raw] of Object.entries(updates)) {
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') throw refused(key, 'must be a string, number or boolean');
    const value = String(raw);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f\u2028\u2029]/.test(value)) throw refused(key, 'must be one line without control characters');
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  try {
    checkSettings(merged);
  } catch (err) {
    if (err instanceof SwitchboardError) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, err.message, { details: (err as { details?: unknown[] }).details });
    throw err;
  }
  return merged;
}

/** Serialises settings to env-file text and proves it reads back identically. */
export function serialise(settings: Record<string, string>): string {
  const keys = Object.keys(settings).sort((a, b) => SETTING_KEYS.indexOf(a) - SETTING_KEYS.indexOf(b));
  const text = `# Written by the Switchboard admin UI. Secrets live here: keep this file mode 0600.\n${keys.map((k) => line(k, settings[k]!)).join('\n')}\n`;
  const back = parseEnv(text) as Record<string, string>;
  for (const key of keys) if (back[key] !== settings[key]) throw refused(key, 'cannot be written to an env file unchanged');
  return text;
}

/** Writes the file atomically: a temp file beside it (mode 0600), fsync, rename over, fsync the folder. */
export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  try {
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some file systems refuse to fsync a folder; the rename itself is still atomic.
  }
}

/**
 * Validates updates, merges them into the env file and writes it; returns the keys saved. `check`
 * sees the merged settings before anything is written and may refuse them by throwing.
 */
export function saveSettings(path: string, updates: Record<string, unknown>, check?: (merged: Record<string, string>) => void): string[] {
  const merged = mergeSettings(readEnvFile(path), updates);
  check?.(merged);
  writeFileAtomic(path, serialise(merged));
  return Object.keys(updates);
}
