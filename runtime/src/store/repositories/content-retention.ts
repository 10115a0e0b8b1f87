import type { Database } from '../database.js';

/**
 * Messages nothing waits on any more: an inbound one handed to its agent or dead-lettered (never one still
 * pending delivery), any outbound one, and none whose inbox entry its agent has not acknowledged yet.
 */
const SETTLED = `NOT (m.direction = 'inbound' AND m.delivery = 'pending' AND NOT EXISTS (SELECT 1 FROM dead_letters d WHERE d.message_id = m.id))
  AND NOT EXISTS (SELECT 1 FROM inbox_entries e WHERE e.message_id = m.id
    AND e.seq > COALESCE((SELECT s.acked_seq FROM inbox_state s WHERE s.agent_id = e.agent_id), 0))`;

/**
 * The retention of content (MESSAGE_RETENTION_DAYS, TRANSCRIPT_RETENTION_DAYS): messages past their time
 * go with every row that names them (their inbox entries, idempotent answers, callback events and
 * attempts, dead letters), and call transcripts are emptied while the call's record (when, how long,
 * its cost, its ledger of timings) stays. Usage rows hold counts and costs, no content, and stay.
 */
export class ContentRetentionRepository {
  constructor(private readonly db: Database) {}

  /**
   * Removes the settled messages stored before `before`, with what names them, `batch` to a transaction
   * and at most `batches` batches a sweep (the next sweep goes on); returns how many.
   */
  async sweepMessages(before: Date, batch = 500, batches = 20): Promise<number> {
    let removed = 0;
    for (let n = 0; n < batches; n++) {
      const done = await this.#sweepBatch(before, batch);
      removed += done;
      if (done < batch) break;
    }
    return removed;
  }

  #sweepBatch(before: Date, limit: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const ids = (await tx.query<{ id: string }>(`SELECT m.id FROM messages m WHERE m.created_at < ? AND ${SETTLED} LIMIT ?`, [before.toISOString(), limit])).map((r) => r.id);
      if (ids.length === 0) return 0;
      const list = `(${ids.map(() => '?').join(', ')})`;
      const events = (await tx.query<{ event_id: string }>(`SELECT event_id FROM callback_events WHERE message_id IN ${list}`, ids)).map((r) => r.event_id);
      if (events.length > 0) {
        const eventList = `(${events.map(() => '?').join(', ')})`;
        await tx.execute(`DELETE FROM callback_attempts WHERE event_id IN ${eventList}`, events);
        await tx.execute(`DELETE FROM callback_events WHERE event_id IN ${eventList}`, events);
      }
      for (const table of ['inbox_entries', 'idempotency_keys', 'dead_letters']) await tx.execute(`DELETE FROM ${table} WHERE message_id IN ${list}`, ids);
      return (await tx.execute(`DELETE FROM messages WHERE id IN ${list}`, ids)).changes;
    });
  }

  /** Empties the transcripts of calls that started before `before`; returns how many. */
  async sweepTranscripts(before: Date): Promise<number> {
    const { changes } = await this.db.execute('UPDATE calls SET transcript = NULL WHERE transcript IS NOT NULL AND created_at < ?', [before.toISOString()]);
    return changes;
  }
}
