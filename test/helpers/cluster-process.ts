import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A cluster process started from source, and what it printed. */
export interface ClusterProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a cluster process (gateway, runtime node, simulator) from source; resolves once its stdout matches `ready`, else kills it after 120 s (tsx compiles each from source; a loaded runner is slow). */
export function startClusterProcess(name: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<ClusterProcess> {
  const child = spawn(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started: ClusterProcess = {
    name,
    child,
    output: () => output,
    exited,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within 120 s:\n${output}`));
    }, 120_000);
    const check = () => {
      if (!ready.test(output)) return;
      clearTimeout(timer);
      resolve(started);
    };
    child.stdout!.on('data', check);
    void exited.then(() => reject(new Error(`${name} exited during start-up:\n${output}`)));
  });
}

/** The provider simulator as a process of its own, with what it printed about itself. */
export interface SimulatorProcess extends ClusterProcess {
  readonly url: string;
  readonly baseUrls: Record<string, string>;
  readonly credentials: { twilio: { accountSid: string; authToken: string } };
}

/** Starts the simulator on a free port (`args` added to its command line). */
export async function startSimulator(args: string[] = []): Promise<SimulatorProcess> {
  const simulator = await startClusterProcess('simulator', ['simulator/src/cli.ts', '--port', '0', '--json', ...args], {}, /"credentials"/);
  const info = JSON.parse(simulator.output().split('\n').find((l) => l.startsWith('{'))!) as Pick<SimulatorProcess, 'url' | 'baseUrls' | 'credentials'>;
  return Object.assign(simulator, { url: info.url, baseUrls: info.baseUrls, credentials: info.credentials });
}

/** What every process of a test cluster is started with: NATS, PostgreSQL, its secrets, and Twilio at the simulator. */
export function clusterEnv(options: { natsUrl: string; databaseUrl: string; publicBaseUrl: string; orchestratorToken: string; dataDir: string; simulator: SimulatorProcess }): Record<string, string> {
  const { simulator } = options;
  return {
    NATS_URL: options.natsUrl,
    DATABASE_URL: options.databaseUrl,
    SECRET_KEY: randomBytes(32).toString('hex'),
    PUBLIC_BASE_URL: options.publicBaseUrl,
    ORCHESTRATOR_TOKEN: options.orchestratorToken,
    DATA_DIR: options.dataDir,
    DEMO_MODE: 'false',
    TWILIO_ACCOUNT_SID: simulator.credentials.twilio.accountSid,
    TWILIO_AUTH_TOKEN: simulator.credentials.twilio.authToken,
    TWILIO_BASE_URL: simulator.baseUrls.twilio!,
  };
}
