/** Result of a statement that changes rows. */
export interface ExecuteResult {
  readonly changes: number;
}

/** A SQL parameter value. */
export type SqlValue = string | number | bigint | null | Buffer;

/**
 * The store's connection, async and backend-neutral: `?` placeholders, standard SQL
 * (ON CONFLICT, RETURNING), no backend-specific pragmas in callers.
 */
export interface SqlExecutor {
  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  execute(sql: string, params?: readonly SqlValue[]): Promise<ExecuteResult>;
}

/** A database: an executor that can also run a unit of work atomically and be closed. */
export interface Database extends SqlExecutor {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** A cheap real query, for readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
