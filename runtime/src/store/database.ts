/** Result of a statement that changes rows. */
export interface ExecuteResult {
  readonly changes: number;
}

/** A SQL parameter value. */
export type SqlValue = string | number | bigint | null | Buffer;

/** The SQL a backend speaks. Repositories write standard SQL and ask this only where backends differ (row locks). */
export type Dialect = 'sqlite' | 'postgres';

/**
 * The store's connection, async and backend-neutral: `?` placeholders, standard SQL
 * (ON CONFLICT, RETURNING), no backend-specific pragmas in callers. Counts and sums come back as
 * numbers in every backend.
 *
 * Outside a transaction, `query` and `get` are reads (SQLite serves them from a read-only
 * connection); a statement that writes and returns rows (`UPDATE … RETURNING`) runs in one.
 */
export interface SqlExecutor {
  readonly dialect: Dialect;
  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  execute(sql: string, params?: readonly SqlValue[]): Promise<ExecuteResult>;
}

/** A condition a guarded write holds to (`WHERE <sql>`), over `?` placeholders, with its values. */
export interface SqlCondition {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

/** One statement of an atomic group. */
export interface SqlStatement {
  readonly sql: string;
  readonly params?: readonly SqlValue[];
  /**
   * The agent whose inbox the statement appends to. A PostgreSQL group commit takes the inbox rows of
   * the agents it appends to first, in one order, so that two processes' commits never wait on each other.
   */
  readonly inboxOf?: string;
}

/**
 * A database: an executor that can also run a unit of work atomically and be closed.
 *
 * The transaction convention: a unit of work is opened with `transaction` (or, for a few statements
 * without logic between them, `executeAll`) by the code that owns the use case; repositories never
 * open one themselves. A repository method that only makes sense inside a unit of work takes the
 * transaction's executor first (`claim(tx, …)`); one that also stands alone takes it last and
 * optional, defaulting to the database. SQL lives in repositories only.
 */
export interface Database extends SqlExecutor {
  /**
   * Runs a few statements atomically, without application logic between them. Unlike `transaction`,
   * groups from concurrent callers may share one commit (group commit), so this is the fast path for
   * multi-statement writes on hot paths.
   */
  executeAll(statements: readonly SqlStatement[]): Promise<ExecuteResult[]>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs `work` holding the lock `name`, which every connection to this database honours, in every
   * process (PostgreSQL: an advisory lock). Migrations run under one, so that of several nodes
   * starting at once one migrates and the others find the work done.
   */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** A cheap real query, for readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
