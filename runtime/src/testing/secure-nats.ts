import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { roleInboxPrefix } from '../protocol/index.js';
import { freePort, startNatsServer, type TestNatsServer } from './nats-server.js';
import { createTestTls, type TestTls } from './test-tls.js';

/** The shipped nats-server configuration (deploy/nats), which these servers run with ports, dirs and certificates of the test. */
export const NATS_DEPLOY_DIR = fileURLToPath(new URL('../../../deploy/nats/', import.meta.url));

/** The users of deploy/nats/switchboard-accounts.conf. */
export type NatsRole = 'runtime' | 'gateway' | 'admin';

/** nats-server(s) running the shipped configuration: TLS required with client certificates, a password per role. */
export interface SecureNatsCluster {
  /** `tls://127.0.0.1:<port>` of each server, comma-separated (a NATS_URL). */
  readonly url: string;
  readonly servers: TestNatsServer[];
  readonly tls: TestTls;
  readonly passwords: Readonly<Record<NatsRole, string>>;
  /** The NATS_* settings of a process connecting as `role`. */
  settings(role: NatsRole): Record<string, string>;
  /** A client connection as `role` (TLS with the client certificate), with the role's inbox prefix (`_INBOX_gateway`, `_INBOX_node`). */
  connect(role: NatsRole, options?: { name?: string }): Promise<NatsConnection>;
  /** Stops server `index` (SIGKILL by default), keeping its store. */
  kill(index: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts server `index` again where it was, on its port with its store. */
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
  /** The servers' log lines about permission or authorization violations so far (clients refused something). */
  violations(): string[];
}

/**
 * Starts `count` nats-servers (1: deploy/nats/nats-server.conf; 3: deploy/nats/cluster/nats-<i>.conf)
 * on loopback, with free ports, temp stores, new certificates and random passwords, and waits until
 * JetStream answers (a cluster has elected its meta leader). What the shipped files say is what runs:
 * a line the helper expects to rewrite and cannot find fails the start.
 */
export async function startSecureNats(options: { count?: 1 | 3 } = {}): Promise<SecureNatsCluster> {
  const count = options.count ?? 1;
  const tls = createTestTls();
  const work = mkdtempSync(join(tmpdir(), 'sb-nats-conf-'));
  const passwords: Record<NatsRole, string> = {
    runtime: `p${randomBytes(18).toString('hex')}`,
    gateway: `p${randomBytes(18).toString('hex')}`,
    admin: `p${randomBytes(18).toString('hex')}`,
  };
  const systemPassword = `p${randomBytes(24).toString('hex')}`;
  const env = { SB_NATS_RUNTIME_PASSWORD: passwords.runtime, SB_NATS_GATEWAY_PASSWORD: passwords.gateway, SB_NATS_ADMIN_PASSWORD: passwords.admin, SB_NATS_SYSTEM_PASSWORD: systemPassword };
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  for (let i = 0; i < count; i++) {
    clientPorts.push(await freePort());
    routePorts.push(await freePort());
  }
  mkdirSync(join(work, 'cluster'));
  copyFileSync(join(NATS_DEPLOY_DIR, 'switchboard-accounts.conf'), join(work, 'switchboard-accounts.conf'));
  const configs = clientPorts.map((port, i) => {
    const source = count === 1 ? join(NATS_DEPLOY_DIR, 'nats-server.conf') : join(NATS_DEPLOY_DIR, 'cluster', `nats-${i + 1}.conf`);
    const storeDir = mkdtempSync(join(tmpdir(), 'sb-nats-'));
    let text = readFileSync(source, 'utf8');
    const rewrite = (from: RegExp, to: string) => {
      if (!from.test(text)) throw new Error(`${source} no longer has ${from}; update runtime/src/testing/secure-nats.ts with it`);
      text = text.replace(from, to);
    };
    rewrite(/^host: 0\.0\.0\.0$/m, 'host: 127.0.0.1');
    rewrite(/^port: 4222$/m, `port: ${port}`);
    rewrite(/store_dir: "\/var\/lib\/nats\/jetstream"/, `store_dir: ${JSON.stringify(storeDir)}`);
    rewrite(/\/etc\/nats\/tls\/server\.pem/g, join(tls.dir, 'server.pem'));
    rewrite(/\/etc\/nats\/tls\/server-key\.pem/g, join(tls.dir, 'server-key.pem'));
    rewrite(/\/etc\/nats\/tls\/ca\.pem/g, tls.caFile);
    if (count > 1) {
      rewrite(/listen: 0\.0\.0\.0:6222/, `listen: 127.0.0.1:${routePorts[i]}`);
      for (let j = 0; j < count; j++) rewrite(new RegExp(`nats-route://nats-${j + 1}:6222`), `nats-route://127.0.0.1:${routePorts[j]}`);
    }
    // Includes are relative to the including file: the copies keep deploy/nats's layout.
    const file = count === 1 ? join(work, 'nats-server.conf') : join(work, 'cluster', `nats-${i + 1}.conf`);
    writeFileSync(file, text);
    return { file, port, storeDir };
  });
  const servers: TestNatsServer[] = [];
  const violations: string[] = [];
  const start = async (i: number) => {
    const server = await startNatsServer({ port: configs[i]!.port, storeDir: configs[i]!.storeDir, configFile: configs[i]!.file, env });
    server.process.stderr!.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (/violation/i.test(line)) violations.push(line);
    });
    return server;
  };
  try {
    servers.push(...(await Promise.all(configs.map((_, i) => start(i)))));
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(work, { recursive: true, force: true });
    rmSync(tls.dir, { recursive: true, force: true });
    throw err;
  }
  const url = clientPorts.map((p) => `tls://127.0.0.1:${p}`).join(',');
  const connectAs = (role: NatsRole, o: { name?: string } = {}) =>
    connect({
      servers: clientPorts.map((p) => `127.0.0.1:${p}`),
      user: role,
      pass: passwords[role],
      tls: { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile },
      ...(role === 'admin' ? {} : { inboxPrefix: roleInboxPrefix(role === 'runtime' ? 'node' : 'gateway') }),
      ...(o.name ? { name: o.name } : {}),
    });
  await waitForJetStream(() => connectAs('admin'));
  return {
    url,
    servers,
    tls,
    passwords,
    settings: (role) => ({
      NATS_URL: url,
      NATS_USER: role,
      NATS_PASSWORD: passwords[role],
      NATS_TLS_CA_FILE: tls.caFile,
      NATS_TLS_CERT_FILE: tls.certFile,
      NATS_TLS_KEY_FILE: tls.keyFile,
      // Runtime nodes hear the server's disconnect advisories (a crashed peer's leases end at once).
      ...(role === 'runtime' ? { NATS_SYSTEM_USER: 'system', NATS_SYSTEM_PASSWORD: systemPassword } : {}),
    }),
    connect: connectAs,
    async kill(index, signal = 'SIGKILL') {
      await servers[index]!.stop({ keepStore: true, signal });
    },
    async restart(index) {
      servers[index] = await start(index);
    },
    violations: () => [...violations],
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
      rmSync(work, { recursive: true, force: true });
      rmSync(tls.dir, { recursive: true, force: true });
    },
  };
}

async function waitForJetStream(open: () => Promise<NatsConnection>): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last: unknown;
  while (Date.now() < deadline) {
    let nc: NatsConnection | undefined;
    try {
      nc = await open();
      const jsm = await jetstreamManager(nc, { timeout: 2000 });
      await jsm.getAccountInfo();
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 250));
    } finally {
      await nc?.close().catch(() => {});
    }
  }
  throw new Error(`JetStream did not answer within 30 s: ${(last as Error)?.message ?? last}`);
}

/** The NATS connection settings all unset (no URL, no credentials, no TLS): spread a test's own over it. */
export const NO_NATS_SETTINGS = {
  NATS_URL: '',
  NATS_USER: '',
  NATS_PASSWORD: '',
  NATS_TOKEN: '',
  NATS_NKEY_SEED_FILE: '',
  NATS_CREDS_FILE: '',
  NATS_TLS_CA_FILE: '',
  NATS_TLS_CERT_FILE: '',
  NATS_TLS_KEY_FILE: '',
  NATS_SYSTEM_USER: '',
  NATS_SYSTEM_PASSWORD: '',
};
