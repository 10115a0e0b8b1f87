import type { Database } from '../database.js';
import { openConnections, type SqliteOptions } from './connection.js';
import { SqliteDatabase } from './sqlite-database.js';

export type { SqliteOptions } from './connection.js';

/** Opens a SQLite database: one writer with group commit, one reader (see SqliteDatabase). */
export async function openSqlite(options: SqliteOptions): Promise<Database> {
  return new SqliteDatabase(await openConnections(options));
}
