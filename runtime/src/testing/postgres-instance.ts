import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './nats-server.js';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 puts `initdb` and `pg_ctl`; `POSTGRES_BIN_DIR` overrides it. */
export const POSTGRES_BIN_DIR = process.env.POSTGRES_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL server of a test's own (for faults: restart it without touching the shared one). */
export interface TestPostgresInstance {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth on loopback). */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Stops the server (fast shutdown: open connections are cut) and starts it again on the same port and data. */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/**
 * Initialises a PostgreSQL cluster in a temp dir with `initdb` and starts it with `pg_ctl` on a free
 * loopback port. initdb refuses to run as root, so as root it runs as the `postgres` system user
 * (`runuser`), which then owns the directory. Fails loudly when the binaries are missing.
 */
export async function startPostgresInstance(): Promise<TestPostgresInstance> {
  const initdb = join(POSTGRES_BIN_DIR, 'initdb');
  const pgCtl = join(POSTGRES_BIN_DIR, 'pg_ctl');
  if (!existsSync(initdb) || !existsSync(pgCtl)) {
    throw new Error(`initdb/pg_ctl not found in ${POSTGRES_BIN_DIR}; install the Debian package postgresql-15, or set POSTGRES_BIN_DIR.`);
  }
  const root = mkdtempSync(join(tmpdir(), 'sb-pg-'));
  const dataDir = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(root, Number(stdout.trim()), Number(gid.trim()));
    chmodSync(root, 0o700);
  }
  const as = (bin: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args));
  await as(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  // Sockets in the data dir's parent (owned by the server's user), TCP on loopback only; fsync off: a test server.
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => as(pgCtl, ['-D', dataDir, '-o', options, '-l', join(root, 'log'), '-w', '-t', '30', 'start']);
  const stop = () => as(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
  await start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
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
