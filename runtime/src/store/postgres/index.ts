import type { Database } from '../database.js';
import { PostgresDatabase, type PostgresOptions } from './postgres-database.js';

export type { PostgresOptions } from './postgres-database.js';

/** Opens a PostgreSQL database and checks that the server answers, with a clear error when it does not. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const db = new PostgresDatabase(options);
  try {
    await db.ping();
  } catch (err) {
    await db.close().catch(() => undefined);
    throw new Error(`PostgreSQL at ${redact(options.connectionString)} is not reachable: ${(err as Error).message}`, { cause: err });
  }
  return db;
}

/** The URL without its password, for messages and logs. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured DATABASE_URL';
  }
}
