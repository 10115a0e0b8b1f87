import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onExit } from './exit-cleanup.js';
import { tracingEnv } from './otlp-sink.js';

/** Repository root: children run from here so that `--import tsx` and workspace packages resolve. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Node flags for a child that runs TypeScript from source: tsx, plus the export conditions this
 * harness was started with (the `bench` script in package.json names them), so that the children
 * resolve workspace packages exactly as the harness does.
 */
export function sourceFlags(): string[] {
  const flags: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith('--conditions=')) flags.push(arg);
    else if ((arg === '--conditions' || arg === '-C') && argv[i + 1]) flags.push(`--conditions=${argv[++i]}`);
  }
  return [...flags, '--import', 'tsx'];
}

/**
 * `BENCH_CPU_PROF=<dir>` makes every server child write a V8 CPU profile there when it stops
 * (summarise one with `node scripts/cpuprofile-top.mjs <file>`).
 */
function profileFlags(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  // One folder per server name: Node writes one file per thread (the tsx loader has its own).
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, name.replace(/[^\w.-]+/g, '-'))}`] : [];
}

/**
 * `BENCH_PG_TRACE=<dir>` makes every server child count the transactions it runs on PostgreSQL, by
 * shape, into `<dir>/<NODE_ID>.json` (see pg-trace.mjs; summarise with pg-trace-summary.mjs);
 * `BENCH_SQLITE_TRACE=<dir>` the statements it runs on SQLite (sqlite-trace.mjs).
 */
function traceFlags(): { flags: string[]; env: Record<string, string> } {
  const flags: string[] = [];
  const env: Record<string, string> = {};
  for (const [name, file] of [
    ['BENCH_PG_TRACE', 'pg-trace.mjs'],
    ['BENCH_SQLITE_TRACE', 'sqlite-trace.mjs'],
  ] as const) {
    const dir = process.env[name];
    if (!dir) continue;
    flags.push('--import', join(ROOT, 'test/bench', file));
    env[name] = dir;
  }
  return { flags, env };
}

/** Loading the server from source through tsx took over 30 s on the shared 2-core machine under load (load average 12+). */
const START_TIMEOUT_MS = 90_000;

/** A server the bench started in its own process. */
export interface ChildServer {
  readonly name: string;
  readonly pid: number;
  /** Everything it printed so far (the last 64 KB). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  readonly name: string;
  /** Node arguments after the source flags: the script and its arguments. */
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Printed once the server is ready; its first capture group is returned. */
  readonly ready: RegExp;
  readonly startTimeoutMs?: number;
}

/** Spawns a Node child that is tracked for clean-up from the first moment, and waits for its ready line. */
export async function spawnServer(options: SpawnOptions): Promise<{ server: ChildServer; match: RegExpExecArray }> {
  const trace = traceFlags();
  const otel = await tracingEnv();
  const child = spawn(process.execPath, [...sourceFlags(), ...profileFlags(options.name), ...trace.flags, ...options.args], {
    cwd: ROOT,
    // A clean environment: no provider credentials from the caller's shell can leak in.
    env: { PATH: process.env.PATH ?? '', ...trace.env, ...otel, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Tracked from the first moment: a bench that crashes or is interrupted must not leave servers behind.
  const kill = onExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-65_536);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(kill);

  const server: ChildServer = {
    name: options.name,
    pid: child.pid ?? 0,
    output: () => output,
    // A profiled child writes its profile as it exits: it gets longer.
    async stop(graceMs = process.env.BENCH_CPU_PROF ? 30_000 : 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        process.stderr.write(`${options.name} did not stop within ${graceMs} ms of SIGTERM: killed\n`);
        child.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };

  try {
    const match = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${options.name} did not start in time:\n${output}`)), options.startTimeoutMs ?? START_TIMEOUT_MS);
      const check = () => {
        const m = options.ready.exec(output);
        if (m) {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          resolve(m);
        }
      };
      child.stdout!.on('data', check);
      child.once('error', (err) => reject(err));
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`${options.name} exited during start-up:\n${output}`));
      });
    });
    return { server, match };
  } catch (err) {
    await server.stop(1_000);
    throw err;
  }
}
