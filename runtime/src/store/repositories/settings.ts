import type { SqlExecutor } from '../database.js';

/** Operator settings kept in the store (values that change at run time, such as markup). */
export class SettingsRepository {
  constructor(private readonly db: SqlExecutor) {}

  async get(key: string): Promise<string | undefined> {
    const row = await this.db.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
    return row?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.db.execute(
      'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
      [key, value, new Date().toISOString()],
    );
  }
}
