import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests use: 127.0.0.1:5432, trust auth, user postgres; `TEST_POSTGRES_URL` overrides it. */
export const TEST_POSTGRES_SERVER = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database made for one test and dropped after it. */
export interface TestDatabase {
  /** `postgres://…/sb_test_<random>` */
  readonly url: string;
  /** Drops the database, closing whatever connections are still open on it. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database `sb_test_<random>` on the test server. Fails with a clear message,
 * never a skip, when PostgreSQL is not reachable.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `sb_test_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_POSTGRES_SERVER);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_SERVER, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(
      `PostgreSQL is not reachable at ${TEST_POSTGRES_SERVER} (${(err as Error).message}). These tests need a running server ` +
        '(trust auth, user postgres): start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, as .ci/run does.',
      { cause: err },
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
