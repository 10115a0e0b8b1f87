import type { Database } from './database.js';

/** One forward-only schema change. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** The statements, as SQLite runs them, and PostgreSQL where `postgres` is absent. */
  readonly statements: readonly string[];
  /** PostgreSQL's own statements, where its types differ (money as NUMERIC). */
  readonly postgres?: readonly string[];
}

/** The advisory lock migrations run under. */
const MIGRATION_LOCK = 'switchboard:migrations';

/**
 * Applies the migrations not yet recorded in `schema_version`, each in its own transaction with
 * its version row, so a crash leaves either all of a migration or none. Re-running is a no-op.
 * Runs under a database-wide lock: of several nodes starting at once, one migrates and the others
 * wait, then find nothing left to do. Returns the versions applied.
 */
export function migrate(db: Database, migrations: readonly Migration[]): Promise<number[]> {
  return db.withLock(MIGRATION_LOCK, () => migrateLocked(db, migrations));
}

async function migrateLocked(db: Database, migrations: readonly Migration[]): Promise<number[]> {
  await db.execute(
    'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const done = await db.transaction(async (tx) => {
      const row = await tx.get('SELECT version FROM schema_version WHERE version = ?', [migration.version]);
      if (row) return false;
      for (const sql of (db.dialect === 'postgres' && migration.postgres) || migration.statements) await tx.execute(sql);
      await tx.execute('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}

/** The highest applied schema version, 0 for an empty database. */
export async function schemaVersion(db: Database): Promise<number> {
  const row = await db.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_version');
  return row?.version ?? 0;
}
