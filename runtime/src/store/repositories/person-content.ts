import type { SqlExecutor } from '../database.js';

/** What an erasure removed, per kind of record. */
export interface ErasedCounts {
  messages: number;
  calls: number;
  deadLetters: number;
  inboxEntries: number;
  callbackEvents: number;
  conversationLinks: number;
  consents: number;
  optOuts: number;
  idempotentAnswers: number;
  contactRefusals: number;
}

/** A column's address as conversations compare it: `whatsapp:` dropped, lower case (see normaliseAddress). */
const person = (column: string) => `lower(replace(${column}, 'whatsapp:', ''))`;

/**
 * Everything the store holds about one person, found by their address (the number behind every
 * channel, or the email address), as one thing to erase (GDPR art. 17, CCPA): messages to and from
 * them, calls with their ledgers and transcripts, dead letters, inbox entries, callback events that
 * carried them, contact links, consents, opt-outs, refused contacts and idempotent answers that named a message of
 * theirs. Usage records stay: they hold counts and costs, no address.
 */
export class PersonContentRepository {
  /** Deletes the person's content inside the erasure's transaction; returns counts and the recording files to remove once it commits. */
  async erase(tx: SqlExecutor, address: string): Promise<{ counts: ErasedCounts; recordings: string[] }> {
    const both = [address, address];
    const messageIds = (await tx.query<{ id: string }>(`SELECT id FROM messages WHERE ${person('from_address')} = ? OR ${person('to_address')} = ?`, both)).map((r) => r.id);
    const calls = await tx.query<{ call_sid: string; recording_file: string | null }>(
      `SELECT call_sid, recording_file FROM calls WHERE ${person('from_address')} = ? OR ${person('to_address')} = ?`,
      both,
    );
    const inList = (ids: readonly string[]) => (ids.length === 0 ? `(NULL)` : `(${ids.map(() => '?').join(', ')})`);
    const callSids = calls.map((c) => c.call_sid);
    // Callback events name their message; a call's events carry the address in their payload.
    const events = (
      await tx.query<{ event_id: string }>(`SELECT event_id FROM callback_events WHERE message_id IN ${inList(messageIds)} OR payload LIKE ? ESCAPE '!'`, [
        ...messageIds,
        `%${address.replace(/[!%_]/g, (c) => `!${c}`)}%`,
      ])
    ).map((r) => r.event_id);
    const count = async (sql: string, params: readonly (string | number)[]) => (await tx.execute(sql, params)).changes;
    const counts: ErasedCounts = {
      inboxEntries: await count(`DELETE FROM inbox_entries WHERE message_id IN ${inList(messageIds)} OR ${person('counterpart')} = ?`, [...messageIds, address]),
      idempotentAnswers: await count(`DELETE FROM idempotency_keys WHERE message_id IN ${inList(messageIds)}`, messageIds),
      callbackEvents: await count(`DELETE FROM callback_events WHERE event_id IN ${inList(events)}`, events),
      conversationLinks: await count(`DELETE FROM contact_links WHERE ${person('address')} = ?`, [address]),
      deadLetters: await count(`DELETE FROM dead_letters WHERE ${person('from_address')} = ? OR ${person('to_address')} = ?`, both),
      messages: await count(`DELETE FROM messages WHERE id IN ${inList(messageIds)}`, messageIds),
      calls: await count(`DELETE FROM calls WHERE call_sid IN ${inList(callSids)}`, callSids),
      consents: await count('DELETE FROM consents WHERE address = ?', [address]),
      optOuts: await count(`DELETE FROM opt_outs WHERE ${person('remote_address')} = ?`, [address]),
      contactRefusals: await count('DELETE FROM contact_refusals WHERE address = ?', [address]),
    };
    await tx.execute(`DELETE FROM callback_attempts WHERE event_id IN ${inList(events)}`, events);
    await tx.execute(`DELETE FROM tasks WHERE subject_id IN ${inList(callSids)}`, callSids);
    return { counts, recordings: calls.flatMap((c) => (c.recording_file ? [c.recording_file] : [])) };
  }
}
