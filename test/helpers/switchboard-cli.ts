import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A CLI command that runs to its end (backup, restore, token reset...): its exit code and what it printed. */
export interface CliRun {
  readonly status: number | null;
  readonly output: string;
}

/**
 * Runs `switchboard <args>` from source in its own process, without blocking this one (a test's load
 * goes on meanwhile); the environment is PATH, NODE_ENV=test and `env`, nothing of this process's.
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', 'gateway/src/cli.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (status) => resolve({ status, output }));
  });
}
