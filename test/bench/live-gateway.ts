import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type ChildServer } from './children.js';
import { onExit } from './exit-cleanup.js';
import type { BenchContext } from './types.js';

/** The provider simulator in its own process, as its `--json` start line describes it. */
export interface SimulatorProcess {
  readonly url: string;
  readonly baseUrls: Record<string, string>;
  readonly credentials: Record<string, Record<string, string>>;
}

/** The real server in live mode, pointed at a simulator in another process. */
export interface LiveGateway {
  /** Origin, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  readonly orchestratorToken: string;
  readonly sim: SimulatorProcess;
  /** The server's and the simulator's process ids, for reading their CPU time. */
  readonly pid: number;
  readonly simulatorPid: number;
  /** Stops the server and the simulator before the scenario ends (the scenario's clean-up does it otherwise). */
  stop(): Promise<void>;
}

/**
 * Starts the provider simulator in a process of its own and the real server in live mode (demo mode
 * off) with every provider pointed at it, as a deployment talks to remote providers: the simulator's
 * work does not share the server's event loop. Both stop when the scenario ends.
 */
export async function startLiveGateway(
  ctx: BenchContext,
  options: { name: string; simulatorArgs?: readonly string[]; env?: Readonly<Record<string, string>> },
): Promise<LiveGateway> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `switchboard-${options.name}-bench-`));
  // Also on any exit of the bench: an interrupted run must not leave the data dir behind.
  ctx.defer(onExit(() => rmSync(dir, { recursive: true, force: true })));
  const { server: simulator, sim } = await startSimulatorProcess(['--gateway-url', `http://127.0.0.1:${port}`, ...(options.simulatorArgs ?? [])]);
  ctx.defer(() => simulator.stop());
  const c = sim.credentials;
  const envFile = join(dir, 'live.env');
  writeFileSync(envFile, '');
  const { server: gateway, match: tokenMatch } = await spawnServer({
    name: 'switchboard',
    args: ['gateway/src/cli.ts', 'start', '--port', String(port), '--data-dir', dir, '--env-file', envFile],
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      // Every phone calls from loopback (the voice target is 1,000 calls), so the per-address cap is lifted.
      HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
      DEMO_MODE: 'false',
      POOL_PHONE_NUMBERS: '+12025550100',
      TWILIO_ACCOUNT_SID: c.twilio!.accountSid!,
      TWILIO_AUTH_TOKEN: c.twilio!.authToken!,
      TWILIO_BASE_URL: sim.baseUrls.twilio!,
      ELEVENLABS_API_KEY: c.elevenlabs!.apiKey!,
      ELEVENLABS_BASE_URL: sim.baseUrls.elevenlabs!,
      DEEPGRAM_API_KEY: c.deepgram!.apiKey!,
      DEEPGRAM_BASE_URL: sim.baseUrls.deepgram!,
      LIMIT_ACTIONS_PER_MINUTE: '0',
      ...options.env,
    },
    ready: /Orchestrator token \(shown once; store it now\): (\S+)/,
  });
  ctx.defer(() => gateway.stop());
  return {
    url: `http://127.0.0.1:${port}`,
    orchestratorToken: tokenMatch[1]!,
    sim,
    pid: gateway.pid,
    simulatorPid: simulator.pid,
    stop: async () => {
      await gateway.stop();
      await simulator.stop();
    },
  };
}

/** Starts the provider simulator's CLI in a process of its own; `args` are its options. */
export async function startSimulatorProcess(args: readonly string[]): Promise<{ server: ChildServer; sim: SimulatorProcess }> {
  const { server, match } = await spawnServer({
    name: 'simulator',
    args: ['simulator/src/cli.ts', '--port', '0', '--json', ...args],
    ready: /^(\{.*\})$/m,
  });
  return { server, sim: JSON.parse(match[1]!) as SimulatorProcess };
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}
