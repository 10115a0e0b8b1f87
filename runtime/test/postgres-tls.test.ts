import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openPostgres } from '../src/store/postgres/index.js';
import { openStore } from '../src/store/store.js';
import { startPostgresInstance, type TestPostgresInstance } from '../src/testing/postgres-instance.js';
import { createTestTls, type TestTls } from '../src/testing/test-tls.js';

/**
 * The store against a PostgreSQL that takes TCP connections over TLS only (`hostssl`), with a role of
 * its own authenticated by password (scram-sha-256): TLS settings come from DATABASE_URL.
 */
describe('PostgreSQL over verified TLS with a password', () => {
  let tls: TestTls;
  let otherCa: TestTls;
  let instance: TestPostgresInstance;
  let dataDir: string;
  const password = `p${randomBytes(12).toString('hex')}`;
  const url = (query: string, secret = password) => `postgres://switchboard:${secret}@127.0.0.1:${instance.port}/switchboard${query}`;
  const verified = (ca = tls.caFile) => `?sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}`;

  before(async () => {
    // The server's certificate names 127.0.0.1 only, so that `localhost` is a host it does not name.
    tls = createTestTls({ serverNames: 'IP:127.0.0.1' });
    otherCa = createTestTls();
    dataDir = mkdtempSync(join(tmpdir(), 'sb-pg-tls-data-'));
    instance = await startPostgresInstance({ tls: { caFile: tls.caFile, certFile: tls.serverCertFile, keyFile: tls.serverKeyFile } });
    const admin = new pg.Client({ connectionString: instance.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE switchboard LOGIN PASSWORD '${password}'`);
      await admin.query('CREATE DATABASE switchboard OWNER switchboard');
    } finally {
      await admin.end();
    }
  });
  after(async () => {
    await instance?.destroy();
    for (const dir of [tls?.dir, otherCa?.dir, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('opens and migrates the store with sslmode=verify-full and the CA, on an encrypted connection', async () => {
    const store = await openStore({ dataDir, databaseUrl: url(verified()) });
    try {
      const row = await store.db.get<{ ssl: boolean; usename: string }>(
        'SELECT s.ssl, a.usename FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid WHERE s.pid = pg_backend_pid()',
      );
      assert.deepEqual(row, { ssl: true, usename: 'switchboard' });
      assert.ok((await store.db.query('SELECT 1 FROM schema_version')).length > 0, 'migrations ran');
    } finally {
      await store.close();
    }
  });

  it('is refused without TLS, with a wrong password, when the certificate is not signed by the CA given, and when it does not name the host', async () => {
    const refused = async (connectionString: string, pattern: RegExp) =>
      assert.rejects(openPostgres({ connectionString }), (err: Error) => pattern.test(`${err.message} ${(err.cause as Error | undefined)?.message}`));
    await refused(url(''), /no pg_hba\.conf entry .*no encryption/);
    await refused(url('?sslmode=disable'), /no pg_hba\.conf entry .*no encryption/);
    await refused(url(verified(), 'wrong'), /password authentication failed for user "switchboard"/);
    await refused(url(verified(otherCa.caFile)), /self[- ]signed certificate|unable to verify|unable to get local issuer/i);
    await refused(url(verified()).replace('@127.0.0.1:', '@localhost:'), /does not match certificate's altnames/);
  });
});
