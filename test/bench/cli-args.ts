import { parseArgs } from 'node:util';
import { CHECK_SETTINGS, FIGURES } from './check.js';
import type { Scenario } from './types.js';

/** The scenarios the gate's figures come from, in the order they appear. */
const checkScenarios = [...new Set(FIGURES.map((f) => f.scenario))];

/** A command line the harness cannot run: exit code 2 with a message. */
export class UsageError extends Error {}

/** What one `npm run bench` was asked to do. */
export interface BenchArgs {
  readonly help: boolean;
  readonly scenarios: readonly Scenario[];
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly writeMarkdown: boolean;
  /** `check`: the gate's scenarios, short, then their figures against test/bench/thresholds.json. */
  readonly check: boolean;
  /** `check --record`: first write this run's figures into thresholds.json as the recorded values. */
  readonly record: boolean;
}

export function usage(known: readonly Scenario[]): string {
  const width = Math.max(...known.map((s) => s.name.length));
  return `Usage: npm run bench -- [scenario...] [options]
       npm run bench -- check [--record]

Starts the real Switchboard server (embedded, demo mode, fresh data dir) in its own process and drives it
with autocannon from this process. Every run first measures bare uWebSockets.js and bare node:http
handlers (each in its own process) and reports every rate as a ratio to them.

Scenarios (all when none is named):
${known.map((s) => `  ${s.name.padEnd(width)}  ${s.description}`).join('\n')}

Options:
  --duration <s>      seconds of measured load per scenario run (default 10)
  --warmup <s>        seconds of unmeasured warm-up before each run (default 2)
  --connections <n>   concurrent connections (default 50)
  --write-md          rewrite the figures section of BENCHMARKS.md with this run
  --record            with check: write this run's figures into thresholds.json (thresholds kept)
  -h, --help          show this help

\`check\` is the benchmark gate: it runs ${checkScenarios.join(', ')} short (${CHECK_SETTINGS.durationSeconds} s measured,
${CHECK_SETTINGS.warmupSeconds} s warm-up, fewer sessions and calls) and compares ratios of the same run (CPU per unit against
the scenario's floor or bare uWS) with test/bench/thresholds.json; it exits 1 naming each figure past its threshold.

Results: a table on stdout, progress on stderr, JSON under test/bench/results/.`;
}

function positiveNumber(name: string, raw: string | undefined, fallback: number, { integer = false, allowZero = false } = {}): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0) || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'} ${allowZero ? '≥ 0' : '> 0'}, got "${raw}".`);
  }
  return value;
}

/** Parses the command line against the known scenarios; throws UsageError on anything it cannot run. */
export function parseBenchArgs(argv: readonly string[], known: readonly Scenario[]): BenchArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        'write-md': { type: 'boolean', default: false },
        record: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  const check = positionals[0] === 'check';
  if (check && positionals.length > 1) throw new UsageError(`check runs its own scenarios (${checkScenarios.join(', ')}); name none after it.`);
  if (check && values['write-md']) throw new UsageError('check writes no figures to BENCHMARKS.md; run the scenarios without check for that.');
  if (!check && values.record) throw new UsageError('--record only goes with check: `npm run bench -- check --record`.');
  const named = check ? [] : positionals;
  const unknown = named.filter((name) => !known.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new UsageError(`Unknown scenario${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}. Known scenarios: ${known.map((s) => s.name).join(', ')}.`);
  }
  return {
    help: values.help === true,
    scenarios: check ? known.filter((s) => checkScenarios.includes(s.name)) : named.length ? known.filter((s) => named.includes(s.name)) : known,
    durationSeconds: positiveNumber('duration', values.duration, check ? CHECK_SETTINGS.durationSeconds : 10),
    warmupSeconds: positiveNumber('warmup', values.warmup, check ? CHECK_SETTINGS.warmupSeconds : 2, { allowZero: true }),
    connections: positiveNumber('connections', values.connections, 50, { integer: true }),
    writeMarkdown: values['write-md'] === true,
    check,
    record: values.record === true,
  };
}
