import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './nats-server.js';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 puts `initdb` and `pg_ctl`; `POSTGRES_BIN_DIR` overrides it. */
export const POSTGRES_BIN_DIR = process.env.POSTGRES_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL server of a test's own (for faults: restart it without touching the shared one). */
export interface TestPostgresInstance {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth on loopback); with `tls`, `?sslmode=verify-full&sslrootcert=<CA>`. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Stops the server (fast shutdown: open connections are cut) and starts it again on the same port and data. */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/** A server certificate, its key and the CA that signed it (PEM files), for a server with `ssl = on`. */
export interface TestPostgresTls {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * Initialises a PostgreSQL cluster in a temp dir with `initdb` and starts it with `pg_ctl` on a free
 * loopback port. initdb refuses to run as root, so as root it runs as the `postgres` system user
 * (`runuser`), which then owns the directory. Fails loudly when the binaries are missing.
 * With `tls`, the server runs with `ssl = on` and takes TCP connections over TLS only (`hostssl`):
 * the `postgres` user without a password, every other user with its password (`scram-sha-256`).
 */
export async function startPostgresInstance(options: { tls?: TestPostgresTls } = {}): Promise<TestPostgresInstance> {
  const initdb = join(POSTGRES_BIN_DIR, 'initdb');
  const pgCtl = join(POSTGRES_BIN_DIR, 'pg_ctl');
  if (!existsSync(initdb) || !existsSync(pgCtl)) {
    throw new Error(`initdb/pg_ctl not found in ${POSTGRES_BIN_DIR}; install the Debian package postgresql-15, or set POSTGRES_BIN_DIR.`);
  }
  const root = mkdtempSync(join(tmpdir(), 'sb-pg-'));
  const dataDir = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  let postgresUid = -1;
  let postgresGid = -1;
  if (asRoot) {
    postgresUid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    postgresGid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(root, postgresUid, postgresGid);
    chmodSync(root, 0o700);
  }
  const as = (bin: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args));
  await as(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  // Sockets in the data dir's parent (owned by the server's user), TCP on loopback only; fsync off: a test server.
  let serverOptions = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  let url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  if (options.tls) {
    // PostgreSQL reads the key only when its owner is the server's user and no one else may read it.
    const owned = (name: string, text: string | Buffer) => {
      const path = join(dataDir, name);
      writeFileSync(path, text);
      chmodSync(path, 0o600);
      if (asRoot) chownSync(path, postgresUid, postgresGid);
    };
    owned('server.crt', readFileSync(options.tls.certFile));
    owned('server.key', readFileSync(options.tls.keyFile));
    owned('pg_hba.conf', 'local all all trust\nhostssl all postgres 127.0.0.1/32 trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n');
    serverOptions += ' -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key';
    url += `?sslmode=verify-full&sslrootcert=${encodeURIComponent(options.tls.caFile)}`;
  }
  const start = () => as(pgCtl, ['-D', dataDir, '-o', serverOptions, '-l', join(root, 'log'), '-w', '-t', '30', 'start']);
  const stop = () => as(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
  await start();
  let running = true;
  return {
    url,
    port,
    dataDir,
    async restart({ downMs = 0 } = {}) {
      await stop();
      running = false;
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await start();
      running = true;
    },
    async stop() {
      if (!running) return;
      await stop();
      running = false;
    },
    async destroy() {
      if (running) await stop().catch(() => undefined);
      running = false;
      rmSync(root, { recursive: true, force: true });
    },
  };
}
