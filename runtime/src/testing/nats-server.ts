import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.js';

/** Where the Debian package `nats-server` puts the binary; `NATS_SERVER_BIN` overrides it. */
export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** A nats-server with JetStream started for a test, on loopback, a free port and its own store dir. */
export interface TestNatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  readonly process: ChildProcess;
  /** Kills the server (SIGTERM, then SIGKILL) and removes its store dir unless `keepStore`. */
  stop(options?: { keepStore?: boolean; signal?: NodeJS.Signals }): Promise<void>;
}

/**
 * Starts a real nats-server with JetStream (`-js -sd <tmp>`) and waits until it accepts connections.
 * Fails loudly when the binary is missing: tests that need NATS never skip.
 * Pass `port` and `storeDir` to restart a server where a stopped one was.
 */
export async function startNatsServer(
  options: { port?: number; storeDir?: string; bin?: string; /** Run `-c <file>` instead of the flags; it must set port and store dir to the ones given. */ configFile?: string; env?: Record<string, string> } = {},
): Promise<TestNatsServer> {
  const bin = options.bin ?? NATS_SERVER_BIN;
  if (!existsSync(bin)) {
    throw new Error(
      `nats-server is not installed at ${bin}; the cluster tests need a real one. ` +
        'Install it with `apt-get install -y nats-server` (Debian package nats-server), or set NATS_SERVER_BIN.',
    );
  }
  const port = options.port ?? (await freePort());
  const storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'sb-nats-'));
  const args = options.configFile ? ['-c', options.configFile] : ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir];
  const child = spawn(bin, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port, child, () => log);
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    process: child,
    async stop({ keepStore = false, signal = 'SIGTERM' } = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
      if (!keepStore) rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  await eventually(async () => child.exitCode !== null || (await canConnect(port)), { intervalMs: 50, message: () => `nats-server to listen on 127.0.0.1:${port}: ${log()}` });
  if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode} before listening: ${log()}`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
