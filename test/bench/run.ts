// `npm run bench [-- scenario... --duration s --write-md]` or `npm run bench -- check`: see BENCHMARKS.md and `--help`.
import { checkFigures } from './check.js';
import { parseBenchArgs, usage, UsageError, type BenchArgs } from './cli-args.js';
import { openScenarioScope } from './context.js';
import { runExitCleanups } from './exit-cleanup.js';
import { describeMachine, readMachine } from './machine.js';
import { BENCHMARKS_MD, writeFiguresToMarkdown } from './markdown.js';
import { buildRows, formatTable, type ScenarioOutcome } from './report.js';
import { writeRunRecord, type RunRecord } from './results-file.js';
import { baseline } from './scenarios/baseline.js';
import { SCENARIOS } from './scenarios/index.js';

async function bench(args: BenchArgs): Promise<number> {
  // The ceiling is measured in every run: absolute figures drift on a shared machine, ratios less so.
  const scenarios = [baseline, ...args.scenarios.filter((s) => s !== baseline)];
  const settings = { durationSeconds: args.durationSeconds, warmupSeconds: args.warmupSeconds, connections: args.connections };
  const machine = readMachine();
  const startedAt = new Date().toISOString();
  process.stderr.write(`Machine: ${describeMachine(machine)}\n`);
  process.stderr.write(`Each run: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured, ${settings.connections} connections${args.check ? '; the gate\'s short run' : ''}.\n`);

  const outcomes: ScenarioOutcome[] = [];
  const failures: RunRecord['failures'][number][] = [];
  for (const scenario of scenarios) {
    process.stderr.write(`\n${scenario.name}: ${scenario.description}\n`);
    const scope = openScenarioScope(scenario.name, settings, { short: args.check });
    try {
      const measurements = await scenario.run(scope.ctx);
      outcomes.push({ scenario: scenario.name, measurements, ...(scenario.target ? { target: scenario.target } : {}) });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      process.stderr.write(`  [${scenario.name}] FAILED: ${error}\n`);
      failures.push({ scenario: scenario.name, error });
    } finally {
      await scope.close();
    }
  }

  const rows = buildRows(outcomes);
  const record: RunRecord = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine,
    settings,
    scenarios: scenarios.map((s) => s.name),
    rows,
    failures,
  };
  process.stdout.write(`\n${formatTable(rows)}\n`);
  for (const f of failures) process.stdout.write(`FAILED ${f.scenario}: ${f.error}\n`);
  process.stderr.write(`\nResults: ${writeRunRecord(record)}\n`);
  if (args.writeMarkdown) {
    writeFiguresToMarkdown(record);
    process.stderr.write(`Figures written to ${BENCHMARKS_MD}\n`);
  }
  // The gate judges the figures it could measure; a failed scenario's figures fail as not measured.
  if (args.check) return checkFigures(rows, { record: args.record });
  return failures.length ? 1 : 0;
}

async function main(argv: readonly string[]): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(argv, SCENARIOS);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`bench: ${err.message}\nRun \`npm run bench -- --help\` for usage.\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${usage(SCENARIOS)}\n`);
    return 0;
  }
  try {
    return await bench(args);
  } finally {
    runExitCleanups();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    runExitCleanups();
    process.exit(1);
  },
);
