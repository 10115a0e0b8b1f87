import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { openPostgres } from '../src/internal.js';
import { createTestDatabase } from '../src/testing/index.js';

/**
 * A connection the server ends while the store holds it between statements (a transaction's work, a
 * session lock's) must fail that work, not the process: pg emits 'error' on a checked-out client, and
 * with no listener that is an uncaught exception. A runtime node died this way in the cluster fault
 * suite (its PostgreSQL connection cut under it), leaving a 17/15/0 spread behind green probes.
 */
describe('PostgreSQL connection lost while the store holds it', () => {
  const terminateOthers = async (url: string) => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    } finally {
      await admin.end();
    }
  };

  it('a transaction whose connection is ended mid-work rejects, and the store serves the next call', async () => {
    const database = await createTestDatabase();
    const db = await openPostgres({ connectionString: database.url });
    try {
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query('SELECT 1');
          await terminateOthers(database.url);
          // The server's end of the connection arrives while no query runs on it.
          await new Promise((r) => setTimeout(r, 300));
          await tx.query('SELECT 1');
        }),
      );
      assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('a session lock whose connection is ended while its work runs does not end the process', async () => {
    const database = await createTestDatabase();
    const db = await openPostgres({ connectionString: database.url });
    try {
      await db
        .withLock('connection-loss', async () => {
          await terminateOthers(database.url);
          await new Promise((r) => setTimeout(r, 300));
        })
        .catch(() => undefined);
      assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
