import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './children.js';
import { describeMachine } from './machine.js';
import { formatMarkdownTable } from './report.js';
import type { RunRecord } from './results-file.js';

const START = '<!-- bench:figures:start -->';
const END = '<!-- bench:figures:end -->';

/** BENCHMARKS.md at the repository root. */
export const BENCHMARKS_MD = join(ROOT, 'BENCHMARKS.md');

/** The figures section for a run, without its markers. */
export function figuresSection(record: RunRecord): string {
  const { durationSeconds, warmupSeconds, connections } = record.settings;
  const lines = [
    `Run of ${record.startedAt.slice(0, 16).replace('T', ' ')} UTC: \`npm run bench -- ${record.scenarios.join(' ')} --duration ${durationSeconds}\`` +
      ` (${warmupSeconds} s warm-up, ${connections} connections).`,
    '',
    `Machine: ${describeMachine(record.machine)}.`,
    '',
    formatMarkdownTable(record.rows),
  ];
  for (const f of record.failures) lines.push('', `Scenario \`${f.scenario}\` failed: ${f.error}`);
  return lines.join('\n');
}

/** Replaces what lies between the figures markers of BENCHMARKS.md; refuses if the markers are missing. */
export function writeFiguresToMarkdown(record: RunRecord, path = BENCHMARKS_MD): void {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${path} has no ${START} … ${END} section to rewrite.`);
  writeFileSync(path, `${text.slice(0, start + START.length)}\n${figuresSection(record)}\n${text.slice(end)}`);
}
