// `npm run bench -- check`: the benchmark gate. Ratios measured in one run against thresholds in thresholds.json.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ReportRow } from './report.js';
import { UWS_LABEL } from './scenarios/baseline.js';

/** The settings of a check run: short, so that `.ci/run` can afford it. `--duration` and `--warmup` still apply. */
export const CHECK_SETTINGS = { durationSeconds: 3, warmupSeconds: 1 } as const;

/** "max": the figure must stay at or under its threshold (a cost); "min": at or over it (a share of a rate). */
export type FigureKind = 'max' | 'min';

/** A ratio of two rows of the same run, which the gate compares with its threshold. */
export interface Figure {
  /** Names the figure in thresholds.json and in the gate's output. */
  readonly name: string;
  readonly kind: FigureKind;
  /** The scenario whose rows give it (the numerator's). */
  readonly scenario: string;
  /** The figure in this run's rows; undefined when a row it needs is missing or did no work. */
  value(rows: readonly ReportRow[]): number | undefined;
}

/** One entry of thresholds.json: the limit a figure is held to, and the value a check last recorded for it. */
export interface Threshold {
  readonly figure: string;
  readonly kind: FigureKind;
  readonly threshold: number;
  /** Why the threshold is where it is: the runs it was read from, and its distance from them. */
  readonly basis?: string;
  readonly recorded: { readonly value: number; readonly commit: string };
}

/** A figure of this run against its entry. */
export interface Verdict {
  readonly figure: string;
  readonly value: number | undefined;
  /** Missing when the figure has no entry in thresholds.json yet. */
  readonly threshold?: Threshold;
  readonly ok: boolean;
}

const byLabel = (rows: readonly ReportRow[], label: string) => rows.find((r) => r.label.startsWith(label));

/** CPU seconds per unit of work of a row, in any unit's scale (a ratio of two of them is scale-free). */
function cpuPerUnit(row: ReportRow | undefined): number | undefined {
  if (!row?.cpu || row.cpu.units <= 0 || row.cpu.cpuSeconds <= 0) return undefined;
  return row.cpu.cpuSeconds / row.cpu.units;
}

/** CPU per unit of the row labelled `label` over that of the row labelled `reference` (the floor or bare uWS). */
function cpuRatio(label: string, reference: string | ((row: ReportRow) => string | undefined)) {
  return (rows: readonly ReportRow[]) => {
    const row = byLabel(rows, label);
    const against = typeof reference === 'string' ? reference : row && reference(row);
    const mine = cpuPerUnit(row);
    const theirs = against === undefined ? undefined : cpuPerUnit(byLabel(rows, against));
    return mine !== undefined && theirs !== undefined ? mine / theirs : undefined;
  };
}

const floorOf = (row: ReportRow) => row.floor;

/**
 * What the gate holds: Switchboard's CPU per unit of work over the bare uWS server's CPU per request,
 * and over its scenario's floor's, in the same run. CPU per unit moves far less than a rate on a
 * loaded machine. Over three check runs at load average 5–13 (16:03–16:18 UTC, 2026-11-28) bare uWS
 * held 10.4–11.4 µs per request while the floors moved 1.8× (ingest's, disk-bound) and 2.6× (the
 * twilio SDK's, in the harness process): the figures against bare uWS are the ones that catch a 1.5×
 * regression; those against a floor have wide thresholds and catch only gross ones.
 */
export const FIGURES: readonly Figure[] = [
  { name: 'health CPU per request / bare uWS CPU per request', kind: 'max', scenario: 'health', value: cpuRatio('health', UWS_LABEL) },
  { name: 'ingest CPU per webhook / bare uWS CPU per request', kind: 'max', scenario: 'ingest', value: cpuRatio('ingest (max rate)', UWS_LABEL) },
  { name: 'ingest CPU per webhook / ingest floor CPU per webhook', kind: 'max', scenario: 'ingest', value: cpuRatio('ingest (max rate)', floorOf) },
  { name: 'send CPU per send / bare uWS CPU per request', kind: 'max', scenario: 'send', value: cpuRatio('send-message (sms)', UWS_LABEL) },
  { name: 'send CPU per send / SDK floor CPU per create', kind: 'max', scenario: 'send', value: cpuRatio('send-message (sms)', floorOf) },
  { name: 'MCP CPU per notification / bare uWS CPU per request', kind: 'max', scenario: 'mcp-sessions', value: cpuRatio('inbound→notification', UWS_LABEL) },
  { name: 'voice CPU per call-second / bare uWS CPU per request', kind: 'max', scenario: 'voice', value: cpuRatio('voice, ', UWS_LABEL) },
  { name: 'inbox read CPU per page / bare uWS CPU per request', kind: 'max', scenario: 'inbox', value: cpuRatio('inbox read', UWS_LABEL) },
];

/** Every figure's value in this run, by name. */
export function measureFigures(rows: readonly ReportRow[], figures: readonly Figure[] = FIGURES): Map<string, number | undefined> {
  return new Map(figures.map((f) => [f.name, f.value(rows)]));
}

/**
 * Each figure against its threshold. A figure passes only when it was measured, has an entry, and is
 * on the right side of (or at) its threshold; an entry whose figure this run did not measure fails.
 */
export function judge(values: ReadonlyMap<string, number | undefined>, thresholds: readonly Threshold[]): Verdict[] {
  const verdicts: Verdict[] = [...values].map(([figure, value]) => {
    const threshold = thresholds.find((t) => t.figure === figure);
    if (!threshold) return { figure, value, ok: false };
    const ok = value !== undefined && Number.isFinite(value) && (threshold.kind === 'max' ? value <= threshold.threshold : value >= threshold.threshold);
    return { figure, value, threshold, ok };
  });
  for (const threshold of thresholds) {
    if (!values.has(threshold.figure)) verdicts.push({ figure: threshold.figure, value: undefined, threshold, ok: false });
  }
  return verdicts;
}

const fmt = (n: number | undefined) => (n === undefined ? 'not measured' : n >= 10 ? n.toFixed(1) : n.toFixed(3));

/** One line per failing verdict: the figure, its value, its threshold, and the value and commit last recorded. */
export function failureLine(v: Verdict): string {
  if (!v.threshold) return `FAIL ${v.figure}: ${fmt(v.value)}, but thresholds.json has no entry for it (run \`npm run bench -- check --record\`)`;
  const { kind, threshold, recorded } = v.threshold;
  const side = v.value === undefined ? 'threshold' : kind === 'max' ? '>' : '<';
  return `FAIL ${v.figure}: ${fmt(v.value)} ${side} ${fmt(threshold)} (${kind}); recorded ${fmt(recorded.value)} at ${recorded.commit}`;
}

/** Every verdict as an aligned table: figure, value, threshold, recorded, ok. */
export function verdictTable(verdicts: readonly Verdict[]): string {
  const cells = [
    ['figure', 'value', 'threshold', 'recorded', 'ok'],
    ...verdicts.map((v) => [
      v.figure,
      fmt(v.value),
      v.threshold ? `${v.threshold.kind} ${fmt(v.threshold.threshold)}` : '—',
      v.threshold ? `${fmt(v.threshold.recorded.value)} at ${v.threshold.recorded.commit}` : '—',
      v.ok ? 'ok' : 'FAIL',
    ]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** A new entry's threshold: 1.3× the recorded value for a cost, 1/1.3 of it for a share. */
export const DEFAULT_MARGIN = 1.3;

/**
 * The entries with this run's values recorded at `commit`. An entry keeps its threshold; a figure
 * with no entry gets one at DEFAULT_MARGIN from its value. Figures not measured keep their entry.
 */
export function recordValues(values: ReadonlyMap<string, number | undefined>, thresholds: readonly Threshold[], commit: string, figures: readonly Figure[] = FIGURES): Threshold[] {
  const round = (n: number) => Number(n.toPrecision(3));
  const updated = thresholds.map((t) => {
    const value = values.get(t.figure);
    return value === undefined ? t : { ...t, recorded: { value: round(value), commit } };
  });
  for (const figure of figures) {
    const value = values.get(figure.name);
    if (value === undefined || updated.some((t) => t.figure === figure.name)) continue;
    const threshold = round(figure.kind === 'max' ? value * DEFAULT_MARGIN : value / DEFAULT_MARGIN);
    updated.push({ figure: figure.name, kind: figure.kind, threshold, recorded: { value: round(value), commit } });
  }
  return updated;
}

/** test/bench/thresholds.json, beside the harness. */
export const THRESHOLDS_JSON = fileURLToPath(new URL('./thresholds.json', import.meta.url));

interface ThresholdsFile {
  readonly about: string;
  readonly thresholds: readonly Threshold[];
}

function readThresholds(path: string): ThresholdsFile {
  let file: ThresholdsFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as ThresholdsFile;
  } catch (err) {
    throw new Error(`cannot read the gate's thresholds from ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(file.thresholds)) throw new Error(`${path} has no "thresholds" list.`);
  return file;
}

function headCommit(): string {
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: fileURLToPath(new URL('.', import.meta.url)), encoding: 'utf8' }).trim();
}

/**
 * Judges this run's rows against thresholds.json and prints the verdicts; with `record`, first
 * rewrites the recorded values (and the commit, HEAD) keeping every threshold. Returns the exit code.
 */
export function checkFigures(rows: readonly ReportRow[], { record = false, path = THRESHOLDS_JSON } = {}): number {
  const values = measureFigures(rows);
  let file = readThresholds(path);
  if (record) {
    file = { ...file, thresholds: recordValues(values, file.thresholds, headCommit()) };
    writeFileSync(path, JSON.stringify(file, null, 2) + '\n');
    process.stderr.write(`Recorded this run's figures in ${path}.\n`);
  }
  const verdicts = judge(values, file.thresholds);
  process.stdout.write(`\nBenchmark gate (${path}):\n${verdictTable(verdicts)}\n\n`);
  const failed = verdicts.filter((v) => !v.ok);
  for (const v of failed) process.stdout.write(`${failureLine(v)}\n`);
  const passed = verdicts.filter((v) => v.ok).map((v) => v.figure);
  process.stdout.write(`${passed.length} of ${verdicts.length} figures pass${passed.length ? `: ${passed.join('; ')}` : ''}.\n`);
  process.stdout.write(failed.length ? `Benchmark gate FAILED: ${failed.length} figure${failed.length > 1 ? 's' : ''} past ${failed.length > 1 ? 'their thresholds' : 'its threshold'}.\n` : 'Benchmark gate passed.\n');
  return failed.length ? 1 : 0;
}
