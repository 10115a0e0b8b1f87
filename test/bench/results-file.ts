import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MachineInfo } from './machine.js';
import type { ReportRow } from './report.js';

/** Everything one run produced, as written to test/bench/results/<timestamp>.json. */
export interface RunRecord {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: MachineInfo;
  readonly settings: { readonly durationSeconds: number; readonly warmupSeconds: number; readonly connections: number };
  readonly scenarios: readonly string[];
  readonly rows: readonly ReportRow[];
  /** Scenarios that failed, with the error; their rows are missing. */
  readonly failures: readonly { readonly scenario: string; readonly error: string }[];
}

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

/** Writes the run record (git-ignored) and returns its path. */
export function writeRunRecord(record: RunRecord): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = `${RESULTS_DIR}${record.startedAt.replaceAll(':', '-').replace(/\.\d+Z$/, 'Z')}.json`;
  writeFileSync(path, JSON.stringify(record, null, 2) + '\n');
  return path;
}
