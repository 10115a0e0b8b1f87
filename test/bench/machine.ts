import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';

/** The machine a run measured on, read at run time: figures mean little without it. */
export interface MachineInfo {
  /** What `nproc` prints: the cores this process may use. */
  readonly nproc: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly freeMemoryGiB: number;
  /** 1, 5 and 15 minute load averages when the run started: a busy shared machine shows here. */
  readonly loadAverage: readonly number[];
  readonly os: string;
  readonly node: string;
  readonly autocannon: string;
}

const gib = (bytes: number) => Math.round((bytes / 2 ** 30) * 10) / 10;

function nproc(): number {
  try {
    return Number.parseInt(execFileSync('nproc', { encoding: 'utf8' }).trim(), 10);
  } catch {
    return os.availableParallelism();
  }
}

/** Reads the machine description. */
export function readMachine(): MachineInfo {
  const require = createRequire(import.meta.url);
  return {
    nproc: nproc(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: gib(os.totalmem()),
    freeMemoryGiB: gib(os.freemem()),
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    autocannon: (require('autocannon/package.json') as { version: string }).version,
  };
}

/** One line for the table header and BENCHMARKS.md. */
export function describeMachine(m: MachineInfo): string {
  return `${m.nproc} cores (${m.cpuModel}), ${m.memoryGiB} GiB RAM, ${m.os}, Node ${m.node}, autocannon ${m.autocannon}, load average ${m.loadAverage.join(' / ')}`;
}
