import { backupDataDir, restoreDataDir } from '@switchboard/runtime';
import { readSettings } from './deployment.js';
import { VERSION } from './version.js';

interface Line {
  dataDir?: string;
  settingsFile?: string;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

/** `switchboard backup --to <file>`: the data dir's store (copied online, a server may be serving), key and audio, in one file. */
export async function backup(line: Line & { to: string }): Promise<number> {
  const settings = readSettings({
    envFile: line.settingsFile ?? './.env',
    requireEnvFile: line.settingsFile !== undefined,
    env: process.env,
    overrides: { DATA_DIR: line.dataDir },
  });
  const { file, bytes, manifest } = await backupDataDir(settings, { to: line.to, version: VERSION, progress: say });
  say(
    `Backup written: ${file} (${size(bytes)}; the store as of ${manifest.createdAt}, ` +
      `${manifest.recordings} recordings, ${manifest.voiceMessages} voice messages).`,
  );
  say(
    manifest.secretKey
      ? 'It holds the store key (secret.key) and message bodies: keep it where only operators can read it.'
      : 'The store\u2019s secrets are sealed with SECRET_KEY from your settings, which the backup does not hold: keep that key with it.',
  );
  return 0;
}

/** `switchboard restore --from <file>`: a backup put back into a new or empty data dir (or, with --force, over one). */
export async function restore(line: Line & { from: string; force: boolean }): Promise<number> {
  const settings = readSettings({
    envFile: line.settingsFile ?? './.env',
    requireEnvFile: line.settingsFile !== undefined,
    env: process.env,
    overrides: { DATA_DIR: line.dataDir },
  });
  const { dataDir, manifest } = await restoreDataDir({ from: line.from, dataDir: settings.DATA_DIR, replace: line.force, progress: say });
  say(
    `Restored into ${dataDir}: the store as of ${manifest.createdAt} (taken by Switchboard ${manifest.switchboardVersion}), ` +
      `${manifest.recordings} recordings, ${manifest.voiceMessages} voice messages.`,
  );
  if (!manifest.secretKey) say('The backup holds no store key: start the server with the SECRET_KEY the backed-up one used.');
  if (settings.RECORDINGS_DIR) say(`Recordings were restored under ${dataDir}/recordings; RECORDINGS_DIR is set: move them there, or unset it.`);
  say(`Start it with: switchboard start --data-dir ${dataDir}`);
  return 0;
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
