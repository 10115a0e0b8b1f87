import { cpuPerUnit, formatCpuLoad, formatCpuParts, formatCpuPerUnit } from './cpu.js';
import { NODE_HTTP_LABEL, UWS_LABEL } from './scenarios/baseline.js';
import type { Measurement, Target } from './types.js';

/** A measurement placed against the ceilings of its run and its scenario's target. */
export interface ReportRow extends Measurement {
  readonly scenario: string;
  readonly ratioToUws: number | null;
  readonly ratioToNodeHttp: number | null;
  /** Rate as a fraction of the row's floor (same run), when it names one. */
  readonly ratioToFloor: number | null;
  /** CPU per unit of work in the row's scale (µs, or ms per call-second), when measured. */
  readonly cpuPerUnit: number | null;
  /** Non-2xx responses plus requests that got no response. */
  readonly errors: number;
  readonly target?: string;
  readonly targetMet?: boolean;
  /** Why the target was missed, when it was. */
  readonly missed?: string[];
}

/** Scenario name, measurements and target as the harness collected them. */
export interface ScenarioOutcome {
  readonly scenario: string;
  readonly target?: Target;
  readonly measurements: readonly Measurement[];
}

/** Turns the run's outcomes into rows with ratios to the bare uWS and bare node:http rates of the same run. */
export function buildRows(outcomes: readonly ScenarioOutcome[]): ReportRow[] {
  const all = outcomes.flatMap((o) => o.measurements);
  const uws = all.find((m) => m.label === UWS_LABEL)?.rate;
  const node = all.find((m) => m.label === NODE_HTTP_LABEL)?.rate;
  return outcomes.flatMap(({ scenario, target, measurements }) =>
    measurements.map(({ ownTarget, reference, ...m }) => {
      const errors = Object.values(m.non2xx).reduce((a, b) => a + b, 0) + m.socketErrors;
      const ratioToUws = uws ? m.rate / uws : null;
      const floorRate = m.floor ? all.find((f) => f.label === m.floor)?.rate : undefined;
      const row = {
        ...m,
        scenario,
        ratioToUws,
        ratioToNodeHttp: node ? m.rate / node : null,
        ratioToFloor: floorRate ? m.rate / floorRate : null,
        cpuPerUnit: m.cpu ? cpuPerUnit(m.cpu) : null,
        errors,
      };
      const judged = ownTarget ?? target;
      if (!judged || reference) return row;
      const missed = missedBy(judged, row);
      return { ...row, target: judged.description, targetMet: missed.length === 0, ...(missed.length ? { missed } : {}) };
    }),
  );
}

function missedBy(target: Target, row: Omit<ReportRow, 'target' | 'targetMet'>): string[] {
  const missed: string[] = [];
  if (row.errors > 0) missed.push(`${row.errors} errors`);
  if (target.minRatioToUws !== undefined && (row.ratioToUws ?? 0) < target.minRatioToUws) missed.push(`ratio ${(row.ratioToUws ?? 0).toFixed(3)} < ${target.minRatioToUws}`);
  if (target.minRate !== undefined && row.rate < target.minRate) missed.push(`rate ${fmtRate(row.rate)} < ${target.minRate}`);
  // A p99 of nothing measured (NaN: no notification arrived in the window) misses, rather than passing every comparison.
  if (target.maxP99Ms !== undefined && Number.isNaN(row.p99Ms)) missed.push('no p99: nothing measured');
  else if (target.maxP99Ms !== undefined && row.p99Ms > target.maxP99Ms) missed.push(`p99 ${row.p99Ms} ms > ${target.maxP99Ms}`);
  if (target.minConnections !== undefined && row.connections < target.minConnections) missed.push(`${row.connections} < ${target.minConnections.toLocaleString('en-US')} concurrent`);
  return missed;
}

const fmtRate = (rate: number) => Math.round(rate).toLocaleString('en-US');
const fmtRatio = (ratio: number | null) => (ratio === null ? '—' : ratio >= 0.1 ? ratio.toFixed(2) : ratio.toFixed(3));
const fmtMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

function notesOf(row: ReportRow): string {
  const parts: string[] = [];
  const codes = Object.entries(row.non2xx).map(([code, n]) => `${code}×${n}`);
  if (codes.length) parts.push(`non-2xx ${codes.join(' ')}`);
  if (row.socketErrors) parts.push(`${row.socketErrors} socket errors/timeouts`);
  if (row.cpu) parts.push(formatCpuLoad(row.cpu));
  if (row.cpu?.parts) parts.push(`CPU per ${row.cpu.unit} by process: ${formatCpuParts(row.cpu)}`);
  if (row.target) parts.push(row.targetMet ? `target met (${row.target})` : `target MISSED: ${row.missed!.join(', ')} (${row.target})`);
  if (row.notes) parts.push(row.notes);
  return parts.join('; ');
}

/** The table's cells, header first: used for stdout and for BENCHMARKS.md. */
export function tableCells(rows: readonly ReportRow[]): string[][] {
  const header = ['scenario', 'CPU per unit', 'rate (/s)', 'vs floor', 'p50 (ms)', 'p99 (ms)', 'vs uWS', 'vs node:http', 'errors', 'notes / target'];
  return [
    header,
    ...rows.map((r) => [
      r.label,
      formatCpuPerUnit(r.cpu),
      fmtRate(r.rate),
      fmtRatio(r.ratioToFloor),
      fmtMs(r.p50Ms),
      fmtMs(r.p99Ms),
      fmtRatio(r.ratioToUws),
      fmtRatio(r.ratioToNodeHttp),
      String(r.errors),
      notesOf(r),
    ]),
  ];
}

/** An aligned plain-text table: text columns to the left, figures to the right. */
export function formatTable(rows: readonly ReportRow[]): string {
  const cells = tableCells(rows);
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const leftAligned = new Set([0, cells[0]!.length - 1]);
  const line = (row: string[]) =>
    row.map((cell, i) => (leftAligned.has(i) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join('\n');
}

/** The same table as GitHub Markdown. */
export function formatMarkdownTable(rows: readonly ReportRow[]): string {
  const [header, ...body] = tableCells(rows);
  const align = header!.map((_, i) => (i === 0 || i === header!.length - 1 ? '---' : '---:'));
  return [header!, align, ...body].map((row) => `| ${row.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`).join('\n');
}
