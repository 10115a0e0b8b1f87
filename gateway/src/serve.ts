import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createLogger, natsUrlForLog, type Logger, type Settings } from '@switchboard/runtime';
import { Deployment, readSettings } from './deployment.js';
import { startRuntimeNode } from './runtime-node.js';
import { VERSION } from './version.js';

/** What the command line chose: the command and the flags that name settings. */
export interface CommandLine {
  readonly command: 'start' | 'gateway' | 'runtime';
  readonly port?: string;
  readonly host?: string;
  readonly dataDir?: string;
  /** --settings or --env-file. */
  readonly settingsFile?: string;
}

/**
 * Runs a server command until SIGTERM/SIGINT. Loaded by the CLI only once the arguments are
 * understood, so `--help`, `--version` and a mistyped command answer without loading the runtime.
 */
export async function runCommand(line: CommandLine): Promise<number> {
  const { command } = line;
  const named = line.settingsFile;
  const sources = {
    envFile: named ?? './.env',
    requireEnvFile: named !== undefined,
    env: process.env,
    overrides: { PORT: line.port, HOST: line.host, DATA_DIR: line.dataDir },
  };
  // Signals are caught before start-up so that a stop request during start still shuts down cleanly.
  const stopRequested = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  if (command === 'runtime') return runNode(readSettings(sources), stopRequested);
  let logger!: ReturnType<typeof createLogger>;
  // A first start that fails (a taken port, a bad driver setting) leaves no data dir behind: the next
  // start is a first start again, and prints the orchestrator token this one generated and never showed.
  const dataDir = resolve(readSettings(sources).DATA_DIR);
  const fresh = !existsSync(dataDir);
  // The admin UI's deploy restarts in-process from the same env file, so no outside supervisor is needed.
  const deployment = await Deployment.start({
    ...sources,
    logger: (settings) => (logger = createLogger({ level: settings.LOG_LEVEL, format: settings.LOG_FORMAT })),
    ...(command === 'gateway' ? { cluster: 'gateway' as const } : {}),
  }).catch((err: unknown) => {
    if (fresh) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  const gateway = deployment.current;
  const { runtime } = gateway;
  // A cluster gateway is one of several behind PUBLIC_BASE_URL: it names its own address, and the shared one apart.
  const clustered = runtime.role === 'gateway';
  const base = clustered ? gateway.url : gateway.publicBaseUrl;
  const lines = [
    `Switchboard ${VERSION} is running${clustered ? ` as cluster gateway ${runtime.nodeId}` : runtime.demoMode ? ' in demo mode (no provider credentials set)' : ''}.`,
    `  API:       ${base}/api/v1  (docs: ${base}/api/v1/openapi.json)`,
    `  Admin UI:  ${base}/admin/setup (setup wizard)  ${base}/admin/dashboard  ${base}/admin/calls  ${base}/admin/api-docs (API explorer)`,
    `  Admin API: ${base}/admin/api/status  (orchestrator token)`,
    `  Health:    ${base}/health`,
  ];
  if (clustered) lines.push(`  Public:    ${gateway.publicBaseUrl}  (PUBLIC_BASE_URL, shared by the gateways: providers call it, and webhook signatures cover it)`);
  if (gateway.simulator) {
    const wanted = runtime.settings.SIMULATOR_PORT;
    const moved = wanted !== 0 && new URL(gateway.simulator.url).port !== String(wanted) ? `; port ${wanted} (SIMULATOR_PORT) was taken` : '';
    lines.push(`  Simulator: ${gateway.simulator.url}/_sim  (demo providers${moved}; POST /_sim/inbound/sms sends the agent a text)`);
  }
  if (runtime.generatedOrchestratorToken) {
    lines.push(
      '',
      `  Orchestrator token (shown once; store it now): ${runtime.generatedOrchestratorToken}`,
      `  Team token: curl -s -H "Authorization: Bearer <orchestrator token>" ${base}/admin/api/my-token`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
  return stopOn(stopRequested, logger, 'shutting down: draining requests', () => deployment.stop());
}

/** `switchboard runtime`: a cluster runtime node until SIGTERM/SIGINT, which hands its partitions over. */
async function runNode(settings: Settings, stopRequested: Promise<string>): Promise<number> {
  const logger = createLogger({ level: settings.LOG_LEVEL, format: settings.LOG_FORMAT });
  const node = await startRuntimeNode({ settings, logger });
  const probes = node.healthUrl ? `; probes at ${node.healthUrl}/health and /health/ready` : '';
  process.stdout.write(`Switchboard ${VERSION} runtime node ${node.nodeId} is running (NATS ${natsUrlForLog(settings.NATS_URL)}${probes}).\n`);
  return stopOn(stopRequested, logger, 'shutting down: handing partitions over', () => node.stop());
}

/** Waits for the stop signal, then stops; the exit code says whether the shutdown went cleanly. */
async function stopOn(stopRequested: Promise<string>, logger: Logger, message: string, stop: () => Promise<void>): Promise<number> {
  const signal = await stopRequested;
  logger.info({ signal }, message);
  try {
    await stop();
  } catch (err) {
    logger.error({ err }, 'shutdown failed');
    return 1;
  }
  logger.info('stopped');
  logger.flush?.();
  return 0;
}
