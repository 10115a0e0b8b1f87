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

/** One statement of an atomic group. */
export interface SqlStatement {
  readonly sql: string;
  readonly params?: readonly SqlValue[];
}

/** A database: an executor that can also run a unit of work atomically and be closed. */
export interface Database extends SqlExecutor {
  /**
   * Runs a few statements atomically, without application logic between them. Unlike `transaction`,
   * groups from concurrent callers share one commit (group commit), so this is the fast path for
   * multi-statement writes on hot paths.
   */
  executeAll(statements: readonly SqlStatement[]): Promise<ExecuteResult[]>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** A cheap real query, for readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
