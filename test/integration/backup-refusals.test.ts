// `switchboard backup` and `switchboard restore` where they must refuse: each with a clear line, a
// non-zero exit, and nothing half-written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { wavFile } from '@switchboard/sdk';
import { loadSecretKey, openStore } from '@switchboard/runtime/internal';
import { runCli } from '../helpers/switchboard-cli.js';

const switchboard = (...args: string[]) => runCli(args);

describe('switchboard backup and restore refuse', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-backup-refusals-'));
  const dataDir = join(dir, 'data');
  const backupFile = join(dir, 'offline.tar.gz');
  const restored = join(dir, 'restored');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a missing data dir, a cluster store, damaged backups and a newer schema: a clear line each, exit 1, and nothing written', async () => {
    // A store with no server on it: the backup is taken offline just as well.
    await (await openStore({ dataDir })).close();
    loadSecretKey(dataDir, '');
    mkdirSync(join(dataDir, 'recordings'), { mode: 0o700 });
    writeFileSync(join(dataDir, 'recordings', 'ses_offlineRecording.wav'), wavFile(Buffer.alloc(1600), 8000), { mode: 0o600 });
    const offline = await switchboard('backup', '--data-dir', dataDir, '--to', backupFile);
    assert.equal(offline.status, 0, offline.output);
    assert.match(offline.output, /Backup written: .*offline\.tar\.gz .*1 recordings, 0 voice messages/);

    // Cut short, not gzip at all, a tar without a manifest.
    const truncated = join(dir, 'truncated.tar.gz');
    copyFileSync(backupFile, truncated);
    truncateSync(truncated, Math.floor(statSync(backupFile).size / 2));
    const garbage = join(dir, 'garbage.tar.gz');
    writeFileSync(garbage, Buffer.from('this is not a backup\n'.repeat(200)));
    const stranger = join(dir, 'stranger.tar.gz');
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    assert.equal(spawnSync('tar', ['-czf', stranger, '-C', dir, 'notes.txt']).status, 0, 'tar(1) made an archive');
    const empty = join(dir, 'empty-dir');
    mkdirSync(empty);
    // A store a later Switchboard migrated further than this one knows.
    const laterDir = join(dir, 'later');
    const later = await openStore({ dataDir: laterDir });
    await later.db.execute("INSERT INTO schema_version (version, name, applied_at) VALUES (9999, 'from-the-future', '2030-01-01T00:00:00Z')");
    await later.close();
    const laterBackup = join(dir, 'later.tar.gz');
    const laterRun = await switchboard('backup', '--data-dir', laterDir, '--to', laterBackup);
    assert.equal(laterRun.status, 0, laterRun.output);

    const never = join(dir, 'never.tar.gz');
    const [missing, cluster, ...damaged] = await Promise.all([
      switchboard('backup', '--data-dir', join(dir, 'no-such-dir'), '--to', never),
      runCli(['backup', '--data-dir', dataDir, '--to', never], { DATABASE_URL: 'postgres://127.0.0.1:5432/switchboard' }),
      switchboard('restore', '--from', truncated, '--data-dir', join(dir, 'fresh-1')),
      switchboard('restore', '--from', garbage, '--data-dir', empty),
      switchboard('restore', '--from', stranger, '--data-dir', join(dir, 'fresh-2')),
      switchboard('restore', '--from', laterBackup, '--data-dir', join(dir, 'fresh-3')),
    ]);
    const newer = damaged.pop()!;
    assert.equal(newer.status, 1, newer.output);
    assert.match(newer.output, /switchboard: VALIDATION_FAILED: .*later\.tar\.gz holds a store of schema 9999, made by Switchboard [\d.]+; this version knows schema \d+\. Restore it with [\d.]+ or later; nothing was written\./);
    assert.equal(missing!.status, 1, missing!.output);
    assert.match(missing!.output, /switchboard: NOT_FOUND: Data dir .*no-such-dir does not exist: name the data dir the server runs with/);
    // A cluster's store is PostgreSQL's to back up: refused, with where the procedure is.
    assert.equal(cluster!.status, 1, cluster!.output);
    assert.match(cluster!.output, /switchboard: CONFLICT: DATABASE_URL is set: .*pg_dump or pg_basebackup.*docs\/cluster\.md, "Backups"/);
    assert.ok(!existsSync(never), 'no backup file from a refused backup');

    const reasons = [/it is not a readable gzipped tar \(.*\)/, /it is not a readable gzipped tar \(.*\)/, /it holds no manifest\.json, so it is not a Switchboard backup/];
    for (const [i, r] of damaged.entries()) {
      assert.equal(r.status, 1, r.output);
      assert.match(r.output, new RegExp(`switchboard: MALFORMED_PAYLOAD: .* cannot be restored: ${reasons[i]!.source}\\. The file may be truncated or damaged; nothing was written`));
    }
    for (const fresh of ['fresh-1', 'fresh-2', 'fresh-3']) assert.ok(!existsSync(join(dir, fresh)), `${fresh}: the data dir a failed restore would have made is not there`);
    assert.deepEqual(readdirSync(empty), [], 'an empty data dir is left empty');
  });

  it('a data dir that holds a store: refused without --force; with it, the backup replaces what a backup holds', async () => {
    const first = await switchboard('restore', '--from', backupFile, '--data-dir', restored);
    assert.equal(first.status, 0, first.output);
    assert.match(first.output, /Restored into .*restored: the store as of .*, 1 recordings, 0 voice messages\.\nStart it with: switchboard start --data-dir .*restored/);
    assert.equal(statSync(join(restored, 'secret.key')).mode & 0o777, 0o600);

    const inTheWay = await switchboard('restore', '--from', backupFile, '--data-dir', restored);
    assert.equal(inTheWay.status, 1, inTheWay.output);
    assert.match(inTheWay.output, /switchboard: CONFLICT: Data dir .*restored is not empty \(it holds .*switchboard\.db.*\): restore into a new or empty folder, or add --force/);

    writeFileSync(join(restored, 'recordings', 'ses_notInTheBackup.wav'), wavFile(Buffer.alloc(800), 8000));
    writeFileSync(join(restored, 'operator-notes.txt'), 'kept');
    const forced = await switchboard('restore', '--from', backupFile, '--data-dir', restored, '--force');
    assert.equal(forced.status, 0, forced.output);
    assert.deepEqual(readdirSync(join(restored, 'recordings')), ['ses_offlineRecording.wav'], 'the recordings are the backup\u2019s');
    assert.ok(existsSync(join(restored, 'operator-notes.txt')), 'what a backup does not hold is left alone');
    assert.ok(!readdirSync(restored).some((name) => name.startsWith('.restore-')), 'no unpacking folder is left');
  });
});
