import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type sqlite3 from 'sqlite3';
import { openConnections } from '../src/internal.js';

const run = (db: sqlite3.Database, sql: string, params: unknown[] = []) =>
  new Promise<void>((resolve, reject) => db.run(sql, params, (err) => (err ? reject(err) : resolve())));
const get = <T>(db: sqlite3.Database, sql: string) => new Promise<T>((resolve, reject) => db.get(sql, (err, row) => (err ? reject(err) : resolve(row as T))));

/** Commits `rows` rows of 16 KiB each (about 4 pages a row). */
async function write(db: sqlite3.Database, rows: number): Promise<void> {
  for (let i = 0; i < rows; i++) await run(db, 'INSERT INTO filler (data) VALUES (?)', [Buffer.alloc(16_384, i % 251)]);
}

describe('WAL checkpointer', () => {
  it('copies the WAL back from its own connection, so the writer never checkpoints at the default 1,000 pages, and the WAL is reused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-wal-'));
    const filename = join(dir, 'w.db');
    const { writer, reader, checkpointer } = await openConnections({ filename, checkpointIntervalMs: 3_600_000 }); // only the test's own checkpoints
    try {
      assert.ok(checkpointer, 'a file store has a checkpointer');
      assert.equal((await get<{ wal_autocheckpoint: number }>(writer, 'PRAGMA wal_autocheckpoint')).wal_autocheckpoint, 8_000);
      await run(writer, 'CREATE TABLE filler (id INTEGER PRIMARY KEY, data BLOB)');
      // Well past SQLite's default threshold: the writer's own commits do not copy it back.
      await write(writer, 500);
      const walBytes = statSync(`${filename}-wal`).size;
      assert.ok(walBytes > 1_000 * 4096, `the WAL holds over 1,000 pages (${walBytes} bytes)`);
      await checkpointer.checkpoint();
      const last = checkpointer.last!;
      assert.ok(last.walPages > 1_000, `the checkpoint saw the whole WAL (${last.walPages} pages)`);
      assert.equal(last.checkpointedPages, last.walPages, 'every page copied back');
      // Copied back, so the next commits start the WAL over instead of growing it.
      await write(writer, 100);
      assert.equal(statSync(`${filename}-wal`).size, walBytes, 'the WAL file is reused, not grown');
      assert.equal((await get<{ n: number }>(reader, 'SELECT count(*) AS n FROM filler')).n, 600);
    } finally {
      await checkpointer?.close();
      for (const db of new Set([reader, writer])) await new Promise<void>((resolve) => db.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an in-memory store has none', async () => {
    const { writer, checkpointer } = await openConnections({ filename: ':memory:' });
    assert.equal(checkpointer, undefined);
    await new Promise<void>((resolve) => writer.close(() => resolve()));
  });
});
