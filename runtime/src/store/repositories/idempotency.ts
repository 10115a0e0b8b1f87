import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
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
  /** The key is claimed by a send still in flight (status 0): no answer yet, and none to start again. */
  readonly inFlight?: boolean;
}

/** The status of a key claimed by a send whose answer is not stored yet. */
const CLAIMED = 0;

/** Idempotency keys per principal scope. */
export class IdempotencyRepository {
  constructor(private readonly db: SqlExecutor) {}

  async find(scope: string, key: string): Promise<IdempotentResponse | undefined> {
    const row = await this.db.get<{ request_hash: string; status: number; response: string }>(
      'SELECT request_hash, status, response FROM idempotency_keys WHERE scope = ? AND idempotency_key = ?',
      [scope, key],
    );
    if (!row) return undefined;
    if (row.status === CLAIMED) return { requestHash: row.request_hash, status: CLAIMED, body: null, inFlight: true };
    return { requestHash: row.request_hash, status: row.status, body: JSON.parse(row.response) };
  }

  /**
   * The INSERT that claims a send's key in the commit storing its message (nothing when the message is
   * not stored, as for an opted-out recipient); a key claimed or answered already is left as it is.
   */
  claimStatement(slot: IdempotencySlot, messageId: string): SqlStatement {
    return {
      sql: `INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, status, response, created_at, message_id)
       SELECT ?, ?, ?, ${CLAIMED}, 'null', ?, ? WHERE EXISTS (SELECT 1 FROM messages WHERE id = ?) ON CONFLICT (scope, idempotency_key) DO NOTHING`,
      params: [slot.scope, slot.key, slot.requestHash, new Date().toISOString(), messageId, messageId],
    };
  }

  /** The key a send still in flight claimed, if it had one. */
  async claimOf(messageId: string): Promise<IdempotencySlot | undefined> {
    const row = await this.db.get<{ scope: string; idempotency_key: string; request_hash: string }>(
      `SELECT scope, idempotency_key, request_hash FROM idempotency_keys WHERE message_id = ? AND status = ${CLAIMED}`,
      [messageId],
    );
    return row && { scope: row.scope, key: row.idempotency_key, requestHash: row.request_hash };
  }

  /** Frees the key a send claimed when the send failed for good, so the request may be made again. */
  async release(messageId: string, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute(`DELETE FROM idempotency_keys WHERE message_id = ? AND status = ${CLAIMED}`, [messageId]);
  }

  /** Records the first answer for a key; a concurrent second record loses and returns false. */
  async record(scope: string, key: string, response: IdempotentResponse, tx: SqlExecutor = this.db): Promise<boolean> {
    const { sql, params } = this.recordStatement(scope, key, response);
    const { changes } = await tx.execute(sql, params);
    return changes === 1;
  }

  /**
   * The write of `record`, to commit with the write that ends the request: it answers a claimed key, and
   * has 0 changes when another answer won.
   */
  recordStatement(scope: string, key: string, response: IdempotentResponse): SqlStatement {
    return {
      sql: `INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, status, response, created_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, idempotency_key)
       DO UPDATE SET status = excluded.status, response = excluded.response WHERE idempotency_keys.status = ${CLAIMED}`,
      params: [scope, key, response.requestHash, response.status, JSON.stringify(response.body), new Date().toISOString()],
    };
  }
}

/** The answer to a repeat of an Idempotency-Key whose first request is still in flight: CONFLICT, retry shortly. */
export function keyInUse(): SwitchboardError {
  return new SwitchboardError(ErrorCodes.CONFLICT, 'A request with this Idempotency-Key is still in progress; retry it in a few seconds to get its answer.', {
    retryable: true,
    retryAfter: 2,
  });
}
