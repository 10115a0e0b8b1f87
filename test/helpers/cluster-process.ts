import { spawn, type ChildProcess } from 'node:child_process';
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

/**
 * Starts a cluster process (gateway, runtime node, simulator) from source; resolves once its stdout matches `ready`, else kills it after 120 s (tsx compiles each from source; a loaded runner is slow).
 * `root`: the checkout it runs from (another release's, test/helpers/previous-release.ts); this one by default.
 */
export function startClusterProcess(name: string, args: string[], env: Record<string, string>, ready: RegExp, root = ROOT): Promise<ClusterProcess> {
  const child = spawn(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', ...args], {
    cwd: root,
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
