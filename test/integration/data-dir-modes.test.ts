import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startServerProcess } from '../helpers/process.js';

const STORE_FILES = ['switchboard.db', 'switchboard.db-wal', 'switchboard.db-shm', 'secret.key', 'switchboard.lock', 'switchboard.pid'];

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
}

describe('data dir file modes', { skip: process.platform === 'win32' ? 'no POSIX modes' : false }, () => {
  it('a new data dir is 0700 and the store, its -wal and -shm, the key and the lock are 0600', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'sb-modes-'));
    const dataDir = join(parent, 'data');
    const server = await startServerProcess(['--data-dir', dataDir]);
    try {
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      assert.equal(mode(dataDir), '0700');
      for (const file of STORE_FILES) assert.equal(mode(join(dataDir, file)), '0600', file);
      assert.doesNotMatch(server.output(), /readable by other users/);
    } finally {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('an existing store made 0644 is narrowed to 0600, and an open data dir is warned about once and left as it is', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-modes-'));
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'switchboard.db'), '', { mode: 0o644 });
    chmodSync(join(dataDir, 'switchboard.db'), 0o644);
    const server = await startServerProcess(['--data-dir', dataDir]);
    try {
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      for (const file of STORE_FILES) assert.equal(mode(join(dataDir, file)), '0600', file);
      const warnings = server.output().match(/readable by other users/g) ?? [];
      assert.equal(warnings.length, 1, server.output());
      assert.match(server.output(), new RegExp(`chmod 700 ${dataDir}`));
      assert.equal(mode(dataDir), '0755');
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
