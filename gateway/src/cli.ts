#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createLogger, type Logger, type Settings } from '@switchboard/runtime';
import { Deployment, readSettings } from './deployment.js';
import { startRuntimeNode } from './runtime-node.js';
import { VERSION } from './version.js';

const USAGE = `Usage: switchboard [start | gateway | runtime] [options]

Commands:
  start             embedded mode (the default): gateway and runtime in one process, SQLite
                    under the data dir, demo mode when no provider is configured
  gateway           a cluster gateway: HTTP API, MCP, webhooks (signatures checked here), voice
                    WebSocket, admin; no actors. Any number, behind one address (PUBLIC_BASE_URL)
  runtime           a cluster runtime node: the agents' actors, drivers and deliveries; no HTTP.
                    Any number; agents move to the others within CLUSTER_LEASE_TTL_MS of a loss

Cluster processes need NATS_URL, DATABASE_URL, SECRET_KEY, PUBLIC_BASE_URL and provider
settings, the same on every process (see docs/cluster.md).

Options:
  --port <n>        TCP port (PORT, default 3000; 0 picks a free one)
  --host <addr>     interface to listen on (HOST, default 127.0.0.1)
  --data-dir <dir>  where the store and keys live (DATA_DIR, default ./data)
  --settings <file> settings file of KEY=value lines (default ./.env, read when present;
                    a file named here must exist). .env.example lists every key.
  --env-file <file> the same as --settings. Node.js itself also reads any --env-file argument
                    and exits when the file is missing, so prefer --settings.
  -h, --help        show this help
  -v, --version     print the version`;

const COMMANDS = ['start', 'gateway', 'runtime'] as const;
type Command = (typeof COMMANDS)[number];

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      settings: { type: 'string' },
      'env-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version) {
    console.log(VERSION);
    return 0;
  }
  const command = positionals[0] ?? 'start';
  if (values.help || !COMMANDS.includes(command as Command)) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const named = values.settings ?? values['env-file'];
  const sources = {
    envFile: named ?? './.env',
    requireEnvFile: named !== undefined,
    env: process.env,
    overrides: { PORT: values.port, HOST: values.host, DATA_DIR: values['data-dir'] },
  };
  // Signals are caught before start-up so that a stop request during start still shuts down cleanly.
  const stopRequested = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  if (command === 'runtime') return runNode(readSettings(sources), stopRequested);
  let logger!: ReturnType<typeof createLogger>;
  // The admin UI's deploy restarts in-process from the same env file, so no outside supervisor is needed.
  const deployment = await Deployment.start({
    ...sources,
    logger: (settings) => (logger = createLogger({ level: settings.LOG_LEVEL })),
    ...(command === 'gateway' ? { cluster: 'gateway' as const } : {}),
  });
  const gateway = deployment.current;
  const { runtime } = gateway;
  // A cluster gateway is one of several behind PUBLIC_BASE_URL: it names its own address, and the shared one apart.
  const base = runtime.cluster ? gateway.url : gateway.publicBaseUrl;
  const lines = [
    `Switchboard ${VERSION} is running${runtime.cluster ? ` as cluster gateway ${runtime.nodeId}` : runtime.demoMode ? ' in demo mode (no provider credentials set)' : ''}.`,
    `  API:       ${base}/api/v1  (docs: ${base}/api/v1/openapi.json)`,
    `  Admin UI:  ${base}/admin/setup (setup wizard)  ${base}/admin/dashboard  ${base}/admin/api-docs (API explorer)`,
    `  Admin API: ${base}/admin/api/status  (orchestrator token)`,
    `  Health:    ${base}/health`,
  ];
  if (runtime.cluster) lines.push(`  Public:    ${gateway.publicBaseUrl}  (PUBLIC_BASE_URL, shared by the gateways: providers call it, and webhook signatures cover it)`);
  if (gateway.simulator) lines.push(`  Simulator: ${gateway.simulator.url}/_sim  (demo providers; POST /_sim/inbound/sms sends the agent a text)`);
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
  const logger = createLogger({ level: settings.LOG_LEVEL });
  const node = await startRuntimeNode({ settings, logger });
  const probes = node.healthUrl ? `; probes at ${node.healthUrl}/health and /health/ready` : '';
  process.stdout.write(`Switchboard ${VERSION} runtime node ${node.nodeId} is running (NATS ${settings.NATS_URL}${probes}).\n`);
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    // The code names the failure for scripts and searches (DRIVER_CONFLICT, VALIDATION_FAILED...).
    const code = typeof (err as { code?: unknown })?.code === 'string' ? `${(err as { code: string }).code}: ` : '';
    process.stderr.write(`switchboard: ${code}${message}\n`);
    process.exit(1);
  },
);
