import type { ExecuteResult, SqlStatement } from '../database.js';
import type { StatementCache } from './statement-cache.js';

/** A write waiting for the next group commit: one statement, or an atomic group of them. */
export interface PendingWrite {
  readonly statements: readonly SqlStatement[];
  resolve(results: ExecuteResult[]): void;
  reject(err: unknown): void;
}

/** How one write of a batch ended. */
export type Outcome = { ok: true; results: ExecuteResult[] } | { ok: false; err: unknown };

/** Hands single statements to SQLite all at once; each succeeds or fails alone. */
export async function runEach(statements: StatementCache, writes: readonly PendingWrite[], outcomes: Map<PendingWrite, Outcome>): Promise<void> {
  await Promise.all(
    writes.map((w) =>
      statements.run(w.statements[0]!.sql, w.statements[0]!.params).then(
        (result) => outcomes.set(w, { ok: true, results: [result] }),
        (err: unknown) => outcomes.set(w, { ok: false, err }),
      ),
    ),
  );
}

/** Runs a group inside a savepoint, statement after statement, kept or undone together. */
export async function runGroup(statements: StatementCache, group: readonly SqlStatement[]): Promise<Outcome> {
  await statements.run('SAVEPOINT grp');
  const results: ExecuteResult[] = [];
  try {
    for (const s of group) results.push(await statements.run(s.sql, s.params));
  } catch (err) {
    await statements.run('ROLLBACK TO grp');
    await statements.run('RELEASE grp');
    return { ok: false, err };
  }
  await statements.run('RELEASE grp');
  return { ok: true, results };
}
