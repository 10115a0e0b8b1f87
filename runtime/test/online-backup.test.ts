// The online copy of a SQLite store: one moment's snapshot, taken in steps while another connection commits.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sqlite3 from 'sqlite3';
import { copyLiveDatabase, inspectDatabaseFile, type CopyProgress } from '../src/internal.js';

function open(path: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(path, (err) => (err ? reject(err) : resolve(db)));
  });
}
const exec = (db: sqlite3.Database, sql: string) => new Promise<void>((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
const get = <T>(db: sqlite3.Database, sql: string) => new Promise<T>((resolve, reject) => db.get(sql, (err, row: T) => (err ? reject(err) : resolve(row))));
const close = (db: sqlite3.Database) => new Promise<void>((resolve) => db.close(() => resolve()));

describe('copyLiveDatabase', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-online-backup-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('copies a store of many steps while another connection commits: progress never goes back, and the copy is one moment', async () => {
    const source = join(dir, 'source.db');
    const writer = await open(source);
    // Two tables written in one transaction each time: a copy that mixed two moments would find them apart.
    await exec(writer, 'PRAGMA journal_mode = WAL; CREATE TABLE a (id INTEGER PRIMARY KEY, pad BLOB); CREATE TABLE b (id INTEGER PRIMARY KEY, pad BLOB); CREATE TABLE schema_version (version INTEGER)');
    await exec(writer, 'BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO a SELECT i, randomblob(2000) FROM n; INSERT INTO b SELECT id, pad FROM a; COMMIT');
    let writing = true;
    let commits = 0;
    const writes = (async () => {
      while (writing) {
        await exec(writer, 'BEGIN; INSERT INTO a (pad) VALUES (randomblob(2000)); INSERT INTO b (pad) VALUES (randomblob(2000)); COMMIT');
        commits++;
      }
    })();
    const seen: CopyProgress[] = [];
    try {
      const before = await get<{ n: number }>(writer, 'SELECT count(*) AS n FROM a');
      const done = await copyLiveDatabase(source, join(dir, 'copy.db'), (p) => seen.push(p));
      writing = false;
      await writes;
      assert.ok(seen.length >= 3, `the copy took ${seen.length} steps; a store of ~12 MiB takes several`);
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.copiedPages > seen[i - 1]!.copiedPages, `progress went back at step ${i}: the copy restarted`);
      assert.equal(done.copiedPages, done.totalPages);
      assert.ok(commits > 0, 'the writer committed while the copy ran');

      const copy = await open(join(dir, 'copy.db'));
      try {
        const { a, b } = await get<{ a: number; b: number }>(copy, 'SELECT (SELECT count(*) FROM a) AS a, (SELECT count(*) FROM b) AS b');
        assert.equal(a, b, 'both tables of one moment');
        assert.ok(a >= before.n, 'every commit before the copy began is in it');
      } finally {
        await close(copy);
      }
      assert.deepEqual(await inspectDatabaseFile(join(dir, 'copy.db')), { schemaVersion: 0 });
    } finally {
      writing = false;
      await writes;
      await close(writer);
    }
  });

  it('inspectDatabaseFile names what is wrong with a file that is not a sound store', async () => {
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, Buffer.alloc(8192, 0x5a));
    const report = await inspectDatabaseFile(junk);
    assert.match(report.problem ?? '', /not a database/);
  });
});
