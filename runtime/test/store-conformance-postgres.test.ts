import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openPostgres } from '../src/internal.js';
import { namedQuery } from '../src/store/postgres/placeholders.js';
import { openStore } from '../src/store/store.js';
import { createTestDatabase, describeDatabaseConformance } from '../src/testing/index.js';

// Needs PostgreSQL on 127.0.0.1:5432 (trust auth); fails, never skips, when it is not there.
describeDatabaseConformance('postgres', async () => {
  const database = await createTestDatabase();
  return {
    connect: () => openPostgres({ connectionString: database.url }),
    dispose: () => database.drop(),
  };
});

describe('PostgreSQL group commit', () => {
  it('concurrent writes share transactions (fewer distinct xmin than writes)', async () => {
    const database = await createTestDatabase();
    const db = await openPostgres({ connectionString: database.url });
    try {
      await db.execute('CREATE TABLE gc_probe (id INTEGER PRIMARY KEY)');
      await db.execute('INSERT INTO gc_probe (id) VALUES (?)', [0]);
      await Promise.all(Array.from({ length: 200 }, (_, i) => db.execute('INSERT INTO gc_probe (id) VALUES (?)', [i + 1])));
      const [row] = await db.query<{ rows: number; transactions: number }>('SELECT count(*) AS rows, count(DISTINCT xmin::text) AS transactions FROM gc_probe');
      assert.equal(row!.rows, 201);
      // At most two commits run at once, so 200 concurrent writes need far fewer than 200 transactions.
      assert.ok(row!.transactions <= 100, `${row!.transactions} transactions for 201 writes`);
    } finally {
      await db.close();
      await database.drop();
    }
  });
});

describe('PostgreSQL prepared statements', () => {
  it('names row-less writes and reads that name their columns only, and both keep working when a column is added (a rolling upgrade)', async () => {
    assert.ok(namedQuery('INSERT INTO t (a) VALUES (?)', [1]).name, 'an INSERT is named');
    assert.ok(namedQuery('UPDATE t SET a = ? WHERE b = ?', [1, 2]).name, 'an UPDATE is named');
    assert.equal(namedQuery('UPDATE t SET a = ? RETURNING *', [1]).name, undefined, 'a write that returns rows is not');
    assert.equal(namedQuery('SELECT * FROM t WHERE a = ?', [1]).name, undefined, 'a read of every column is not');
    assert.equal(namedQuery('SELECT COUNT(*) AS n FROM t', []).name, undefined, 'nor any text with a star');
    assert.ok(namedQuery('SELECT a FROM t WHERE b = ? FOR UPDATE', [1]).name, 'a read that names its columns is');
    assert.equal(namedQuery('INSERT INTO t (a) VALUES (?)', [2]).name, namedQuery('INSERT INTO t (a) VALUES (?)', [3]).name, 'one name per text');
    const database = await createTestDatabase();
    // The fewest connections the store opens, so that the statements prepared on them meet the new column.
    const db = await openPostgres({ connectionString: database.url, maxConnections: 2 });
    try {
      await db.execute('CREATE TABLE prep_probe (id INTEGER PRIMARY KEY, a TEXT NOT NULL)');
      for (let i = 0; i < 4; i++) await db.execute('INSERT INTO prep_probe (id, a) VALUES (?, ?)', [i, `v${i}`]);
      for (let i = 0; i < 4; i++) assert.equal((await db.get<{ a: string }>('SELECT a FROM prep_probe WHERE id = ?', [i]))?.a, `v${i}`);
      await db.execute("ALTER TABLE prep_probe ADD COLUMN b TEXT NOT NULL DEFAULT 'new'");
      for (let i = 4; i < 8; i++) await db.execute('INSERT INTO prep_probe (id, a) VALUES (?, ?)', [i, `v${i}`]);
      await db.execute('UPDATE prep_probe SET a = ? WHERE id = ?', ['changed', 7]);
      for (let i = 0; i < 8; i++) assert.equal((await db.get<{ a: string }>('SELECT a FROM prep_probe WHERE id = ?', [i]))?.a, i === 7 ? 'changed' : `v${i}`);
      const rows = await db.query<{ id: number; a: string; b: string }>('SELECT * FROM prep_probe ORDER BY id');
      assert.equal(rows.length, 8);
      assert.deepEqual(rows[7], { id: 7, a: 'changed', b: 'new' });
    } finally {
      await db.close();
      await database.drop();
    }
  });
});

describe('PostgreSQL trigger functions', () => {
  it('keep one generic plan per connection (migration 28): no planning per row', async () => {
    const database = await createTestDatabase();
    const store = await openStore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-plans-')), databaseUrl: database.url });
    try {
      const rows = await store.db.query<{ proname: string; settings: string }>(
        "SELECT proname, array_to_string(proconfig, ',') AS settings FROM pg_proc WHERE proname IN ('inbox_append', 'messages_cost_to_usage', 'conversation_touch', 'conversation_untouch') ORDER BY proname",
      );
      assert.deepEqual(
        rows.map((r) => [r.proname, r.settings]),
        ['conversation_touch', 'conversation_untouch', 'inbox_append', 'messages_cost_to_usage'].map((name) => [name, 'plan_cache_mode=force_generic_plan']),
      );
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
