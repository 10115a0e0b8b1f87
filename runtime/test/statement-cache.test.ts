import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sqlite3 from 'sqlite3';
import { StatementCache } from '../src/store/sqlite/statement-cache.js';

const open = () => new Promise<sqlite3.Database>((resolve, reject) => {
  const db = new sqlite3.Database(':memory:', (err) => (err ? reject(err) : resolve(db)));
});

describe('statement cache', () => {
  it('keeps a statement for each of 50 concurrent runs of one SQL, so the next 50 prepare none', async () => {
    const db = await open();
    const cache = new StatementCache(db);
    try {
      await cache.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
      await cache.run("INSERT INTO t (v) VALUES ('a'), ('b')");
      const round = () => Promise.all(Array.from({ length: 50 }, (_, i) => cache.all<{ v: string }>('SELECT v FROM t WHERE id = ?', [1 + (i % 2)])));
      const first = await round();
      assert.deepEqual(first.slice(0, 2).map((rows) => rows[0]!.v), ['a', 'b']);
      const prepared = cache.prepared;
      const second = await round();
      assert.equal(second.length, 50);
      assert.equal(cache.prepared, prepared, 'the second round ran on kept statements');
    } finally {
      await cache.clear();
      await new Promise<void>((resolve) => db.close(() => resolve()));
    }
  });
});
