import type { SqlExecutor, SqlStatement } from '../database.js';

/** Where an idempotent request's answer is stored: the caller's scope, its key and the hash of the request. */
export interface IdempotencySlot {
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
}

/** A stored answer to a mutating request, replayed when the same key comes again. */
export interface IdempotentResponse {
  readonly requestHash: string;
  readonly status: number;
  readonly body: unknown;
}

/** Idempotency keys per principal scope. */
export class IdempotencyRepository {
  constructor(private readonly db: SqlExecutor) {}

  async find(scope: string, key: string): Promise<IdempotentResponse | undefined> {
    const row = await this.db.get<{ request_hash: string; status: number; response: string }>(
      'SELECT request_hash, status, response FROM idempotency_keys WHERE scope = ? AND idempotency_key = ?',
      [scope, key],
    );
    return row && { requestHash: row.request_hash, status: row.status, body: JSON.parse(row.response) };
  }

  /** Records the first answer for a key; a concurrent second record loses and returns false. */
  async record(scope: string, key: string, response: IdempotentResponse, tx: SqlExecutor = this.db): Promise<boolean> {
    const { sql, params } = this.recordStatement(scope, key, response);
    const { changes } = await tx.execute(sql, params);
    return changes === 1;
  }

  /** The INSERT of `record`, to commit with the write that ends the request (0 changes when another record won). */
  recordStatement(scope: string, key: string, response: IdempotentResponse): SqlStatement {
    return {
      sql: `INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, status, response, created_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, idempotency_key) DO NOTHING`,
      params: [scope, key, response.requestHash, response.status, JSON.stringify(response.body), new Date().toISOString()],
    };
  }
}
