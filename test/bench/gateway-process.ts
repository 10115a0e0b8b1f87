import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type ChildServer } from './children.js';
import { onExit } from './exit-cleanup.js';
import type { GatewayUnderTest } from './types.js';

const URL_LINE = /API:\s+(http:\/\/[^/\s]+)\/api\/v1/;
const TOKEN_LINE = /Orchestrator token \(shown once; store it now\): (\S+)/;
const SIMULATOR_LINE = /Simulator: (\S+)\/_sim/;

/** A real `switchboard start` in its own process, with its fresh data dir. */
export interface GatewayProcess extends GatewayUnderTest {
  /** Stops the server and removes its data dir. */
  stop(): Promise<void>;
}

/**
 * Starts the CLI from source in embedded demo mode: a fresh temp data dir, an empty env file (so a
 * developer's ./.env cannot switch providers on), LOG_LEVEL=warn so logging does not dominate.
 */
export async function startGatewayProcess(options: { adapter?: 'uws' | 'node'; env?: Readonly<Record<string, string>> } = {}): Promise<GatewayProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const envFile = join(dataDir, 'bench.env');
  writeFileSync(envFile, '');
  const removeDataDir = onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  let server: ChildServer | undefined;
  try {
    const started = await spawnServer({
      name: options.adapter ? `switchboard-${options.adapter}` : 'switchboard',
      args: ['gateway/src/cli.ts', 'start', '--port', '0', '--data-dir', dataDir, '--env-file', envFile],
      // Every load comes from loopback and the mcp-sessions scenario holds 10,000 sessions on one token: it measures
      // capacity, so the per-address connection cap and the per-token session cap are lifted.
      env: {
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        DEMO_MODE: 'true',
        HTTP_ADAPTER: options.adapter ?? 'auto',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
        MCP_MAX_SESSIONS_PER_PRINCIPAL: '100000',
        ...options.env,
      },
      // The token line follows the URL line in the same banner; waiting for it gets both.
      ready: TOKEN_LINE,
      // tsx compiles the sources at start; on a loaded two-core machine that has taken over 30 s.
      startTimeoutMs: 90_000,
    });
    server = started.server;
    const url = URL_LINE.exec(server.output())?.[1];
    if (!url) throw new Error(`switchboard printed no API URL:\n${server.output()}`);
    const orchestratorToken = started.match[1]!;
    const simulatorUrl = SIMULATOR_LINE.exec(server.output())?.[1];
    if (!simulatorUrl) throw new Error(`switchboard printed no simulator URL (demo mode):\n${server.output()}`);
    let teamToken: Promise<string> | undefined;
    const running = server;
    return {
      url,
      orchestratorToken,
      simulatorUrl,
      pid: running.pid,
      teamToken: () => (teamToken ??= fetchTeamToken(url, orchestratorToken)),
      async stop() {
        await running.stop();
        removeDataDir();
      },
    };
  } catch (err) {
    await server?.stop();
    removeDataDir();
    throw err;
  }
}

async function fetchTeamToken(url: string, orchestratorToken: string): Promise<string> {
  const res = await fetch(`${url}/admin/api/my-token`, { headers: { authorization: `Bearer ${orchestratorToken}` } });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 200 || !body.token) throw new Error(`GET /admin/api/my-token answered ${res.status}: ${JSON.stringify(body)}`);
  return body.token;
}
