import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openPostgres } from '../src/internal.js';
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
