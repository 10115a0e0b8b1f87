import type pg from 'pg';

/** How long a table the catalogue did not name waits before it is looked up again. */
const RETRY_MS = 10_000;

/**
 * The column types of the store's tables and views, read from PostgreSQL's catalogue: a multi-row
 * INSERT whose rows are a `UNION ALL` of selects must cast its parameters (PostgreSQL takes an untyped
 * one there as text). Read once, in the background, at the first ask; until it is in, and for a table it
 * did not name, `of` answers undefined and the caller runs its statements one by one.
 */
export class ColumnTypes {
  #tables = new Map<string, ReadonlyMap<string, string>>();
  #loading: Promise<void> | undefined;
  #loadedAt = -Infinity;

  constructor(private readonly pool: pg.Pool) {}

  /** The type of each column of `table` (`text`, `integer`, `double precision`, …), or undefined for now. */
  of(table: string): ReadonlyMap<string, string> | undefined {
    const columns = this.#tables.get(table.toLowerCase());
    if (columns === undefined && this.#loading === undefined && Date.now() - this.#loadedAt >= RETRY_MS) this.#loading = this.#load();
    return columns;
  }

  async #load(): Promise<void> {
    try {
      // The type without its modifier (`character varying`, not `character varying(64)`): an explicit cast to a
      // length would cut a long value silently, where the column's own assignment refuses it as one row would.
      const { rows } = await this.pool.query<{ relname: string; attname: string; type: string }>(
        `SELECT c.relname, a.attname, format_type(a.atttypid, NULL) AS type
           FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
          WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'v', 'p') AND a.attnum > 0 AND NOT a.attisdropped`,
      );
      const tables = new Map<string, Map<string, string>>();
      for (const row of rows) {
        let columns = tables.get(row.relname);
        if (!columns) tables.set(row.relname, (columns = new Map()));
        columns.set(row.attname, row.type);
      }
      this.#tables = tables;
    } catch {
      // Unread: statements run one by one until the next try.
    } finally {
      this.#loadedAt = Date.now();
      this.#loading = undefined;
    }
  }
}
