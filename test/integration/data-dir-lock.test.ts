import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DataDirLock } from '@switchboard/runtime/internal';
import { startServerProcess, type ServerProcess } from '../helpers/process.js';

describe('one server per data dir', () => {
  it('refuses a second server on the same data dir, naming the dir and the pid; after kill -9 of the first, a new one starts', async () => {
    const dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-lock-')));
    const started: ServerProcess[] = [];
    try {
      const first = await startServerProcess(['--data-dir', dataDir]);
      started.push(first);

      const refused = await startServerProcess(['--data-dir', dataDir]).then(
        (second) => {
          started.push(second);
          return undefined;
        },
        (err: Error) => err.message,
      );
      assert.ok(refused, 'a second server started on the same data dir');
      assert.ok(refused.includes(`Data dir ${dataDir} is in use`), refused);
      assert.ok(refused.includes(`pid ${first.child.pid}`), refused);
      assert.match(refused, /another --data-dir/);
      assert.equal((await fetch(`${first.url}/health`)).status, 200, 'the first server still serves');

      assert.equal(await first.stop('SIGKILL'), null);
      const next = await startServerProcess(['--data-dir', dataDir]);
      started.push(next);
      assert.equal((await fetch(`${next.url}/health`)).status, 200);
      assert.equal(await next.stop(), 0);
      assert.ok(!existsSync(join(dataDir, 'switchboard.pid')), 'a clean stop removes the holder record');
    } finally {
      await Promise.all(started.map((s) => s.stop('SIGKILL')));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('is exclusive within one process too, and released lock can be taken again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-lock-'));
    try {
      const lock = await DataDirLock.acquire(dataDir);
      await assert.rejects(DataDirLock.acquire(dataDir), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'CONFLICT');
        assert.ok(err.message.includes(`pid ${process.pid}`), err.message);
        return true;
      });
      await lock.release();
      const again = await DataDirLock.acquire(dataDir);
      await again.release();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
