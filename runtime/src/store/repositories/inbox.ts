import type { Channel } from '@switchboard/sdk';
import type { INBOX_ENTRY_TYPES } from '../../protocol/operations.js';
import type { SqlExecutor, SqlStatement } from '../database.js';
import { inConversation } from '../../protocol/conversations.js';

/** What an inbox entry tells the agent. */
export type InboxEntryType = (typeof INBOX_ENTRY_TYPES)[number];

/** One entry of an agent's inbox, at its cursor. */
export interface InboxEntry {
  readonly cursor: number;
  readonly id: string;
  readonly type: InboxEntryType;
  readonly agentId: string;
  readonly channel: Channel;
  /** The other party: the sender of an inbound message, the recipient of an outbound one. */
  readonly counterpart: string;
  readonly conversationId: string;
  /** The message the entry is about; null for a call's entries (their payload names the call). */
  readonly messageId: string | null;
  readonly status: string | null;
  /** What the agent needs without another call (the message's text, a receipt's price or error). */
  readonly payload: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

/** An entry before the store gives it its cursor. */
export type NewInboxEntry = Omit<InboxEntry, 'cursor'>;

/** Where an agent's inbox stands: the last cursor given out and the cursor acknowledged. */
export interface InboxPosition {
  readonly lastCursor: number;
  readonly ackedCursor: number;
}

/** Filters of a read. */
export interface InboxFilter {
  readonly channel?: Channel;
  readonly conversationId?: string;
}

interface EntryRow {
  agent_id: string;
  seq: number;
  id: string;
  type: InboxEntryType;
  channel: Channel;
  counterpart: string;
  conversation_id: string;
  message_id: string | null;
  status: string | null;
  payload: string;
  created_at: string;
}

/**
 * What an entry's append is conditional on, in its event's own atomic group: its message stored (a
 * provider retry, its message deduplicated, or a fenced send that stored nothing takes no cursor and
 * leaves no entry), or its call logged: at all (the call's start, its voicemail), with a status other
 * than the one being written (a status change; the append runs before the update), or without its
 * conversation yet (the transcript; likewise before the update).
 */
export type EntryCondition =
  | { readonly messageStored: string }
  | { readonly callLogged: string }
  | { readonly callStatusChangesTo: { readonly callSid: string; readonly status: string } }
  | { readonly callConversationMissing: string }
  /** The message, or the call, still has this status (the entry's statements run before the update that changes it). */
  | { readonly messageStatusIs: { readonly messageId: string; readonly status: string } }
  | { readonly callStatusIs: { readonly callSid: string; readonly status: string } };

function condition(when: EntryCondition): { sql: string; params: string[] } {
  if ('messageStored' in when) return { sql: 'EXISTS (SELECT 1 FROM messages WHERE id = ?)', params: [when.messageStored] };
  if ('callLogged' in when) return { sql: 'EXISTS (SELECT 1 FROM calls WHERE call_sid = ?)', params: [when.callLogged] };
  if ('callStatusChangesTo' in when) {
    const { callSid, status } = when.callStatusChangesTo;
    return { sql: 'EXISTS (SELECT 1 FROM calls WHERE call_sid = ? AND status <> ?)', params: [callSid, status] };
  }
  if ('callStatusIs' in when) {
    const { callSid, status } = when.callStatusIs;
    return { sql: 'EXISTS (SELECT 1 FROM calls WHERE call_sid = ? AND status = ?)', params: [callSid, status] };
  }
  if ('messageStatusIs' in when) {
    const { messageId, status } = when.messageStatusIs;
    return { sql: 'EXISTS (SELECT 1 FROM messages WHERE id = ? AND status = ?)', params: [messageId, status] };
  }
  return { sql: 'EXISTS (SELECT 1 FROM calls WHERE call_sid = ? AND ledger IS NULL)', params: [when.callConversationMissing] };
}

/**
 * Both statements carry the entry's condition and must run in this order in the event's own atomic
 * group; neither has a shape the SQLite coalescer merges across groups (which would give two entries
 * of one agent the same cursor).
 */
const bump = (when: string) => `INSERT INTO inbox_state (agent_id, last_seq, acked_seq) SELECT ?, 1, 0 WHERE ${when}
  ON CONFLICT (agent_id) DO UPDATE SET last_seq = inbox_state.last_seq + 1`;
const append = (when: string) => `INSERT INTO inbox_entries (agent_id, seq, id, type, channel, counterpart, conversation_id, message_id, status, payload, created_at)
  SELECT s.agent_id, s.last_seq, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM inbox_state s WHERE s.agent_id = ? AND ${when}`;
const MESSAGE_STORED = condition({ messageStored: '' }).sql;
const BUMP = bump(MESSAGE_STORED);
const APPEND = append(MESSAGE_STORED);

/** Agents' inboxes: entries by per-agent cursor, and each agent's acknowledged cursor. */
export class InboxRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * The statements that append `entry` at the agent's next cursor, to run in the event's own atomic
   * group; by default conditional on the entry's message being stored.
   */
  appendStatements(entry: NewInboxEntry, when: EntryCondition = { messageStored: entry.messageId ?? '' }): SqlStatement[] {
    const test = condition(when);
    // The message condition, the one of every ingest, keeps its statements' text constant.
    const [bumpSql, appendSql] = 'messageStored' in when ? [BUMP, APPEND] : [bump(test.sql), append(test.sql)];
    return [
      { sql: bumpSql, params: [entry.agentId, ...test.params] },
      {
        sql: appendSql,
        params: [
          entry.id,
          entry.type,
          entry.channel,
          entry.counterpart,
          entry.conversationId,
          entry.messageId,
          entry.status,
          JSON.stringify(entry.payload),
          entry.createdAt,
          entry.agentId,
          ...test.params,
        ],
      },
    ];
  }

  /** Appends `entry` inside a transaction (the paths that already hold one). */
  async append(tx: SqlExecutor, entry: NewInboxEntry): Promise<void> {
    for (const { sql, params } of this.appendStatements(entry)) await tx.execute(sql, params);
  }

  async position(agentId: string, tx: SqlExecutor = this.db): Promise<InboxPosition> {
    const row = await tx.get<{ last_seq: number; acked_seq: number }>('SELECT last_seq, acked_seq FROM inbox_state WHERE agent_id = ?', [agentId]);
    return { lastCursor: Number(row?.last_seq ?? 0), ackedCursor: Number(row?.acked_seq ?? 0) };
  }

  /** Entries after `after`, in cursor order, at most `limit`. */
  async read(agentId: string, after: number, limit: number, filter: InboxFilter = {}): Promise<InboxEntry[]> {
    const where = ['agent_id = ?', 'seq > ?'];
    const params: (string | number)[] = [agentId, after];
    if (filter.channel) {
      where.push('channel = ?');
      params.push(filter.channel);
    }
    if (filter.conversationId) {
      const member = inConversation(agentId, filter.conversationId);
      where.push(member.sql);
      params.push(...member.params);
    }
    const rows = await this.db.query<EntryRow>(`SELECT * FROM inbox_entries WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`, [...params, limit]);
    return rows.map(toEntry);
  }

  /** The first entry of a conversation after `after` whose type is one of `types`. */
  async firstOf(agentId: string, conversationId: string, after: number, types: readonly InboxEntryType[]): Promise<InboxEntry | undefined> {
    const member = inConversation(agentId, conversationId);
    const row = await this.db.get<EntryRow>(
      `SELECT * FROM inbox_entries WHERE agent_id = ? AND ${member.sql} AND seq > ? AND type IN (${types.map(() => '?').join(', ')}) ORDER BY seq LIMIT 1`,
      [agentId, ...member.params, after, ...types],
    );
    return row && toEntry(row);
  }

  /**
   * Where a conversation stands in the agent's inbox: its last entry's cursor (0: no entry) and the
   * cursor of the agent's latest send in it (a message's `queued` entry, a placed call's first
   * status; 0: none).
   */
  async conversationMarks(agentId: string, conversationId: string): Promise<{ lastCursor: number; lastSendCursor: number }> {
    const member = inConversation(agentId, conversationId);
    const row = await this.db.get<{ last_seq: number | string | null; last_send: number | string | null }>(
      `SELECT MAX(seq) AS last_seq, MAX(CASE WHEN (type = 'message.status' AND status = 'queued')
         OR (type = 'call.status' AND status IN ('queued', 'initiated')) THEN seq END) AS last_send
       FROM inbox_entries WHERE agent_id = ? AND ${member.sql}`,
      [agentId, ...member.params],
    );
    return { lastCursor: Number(row?.last_seq ?? 0), lastSendCursor: Number(row?.last_send ?? 0) };
  }

  /**
   * Moves the acknowledged cursor forward to `upTo` (never back, never past the last cursor given
   * out). Returns false when `upTo` is past the last cursor.
   */
  async acknowledge(agentId: string, upTo: number): Promise<boolean> {
    const { lastCursor } = await this.position(agentId);
    if (upTo > lastCursor) return false;
    if (upTo > 0) await this.db.execute('UPDATE inbox_state SET acked_seq = ? WHERE agent_id = ? AND acked_seq < ?', [upTo, agentId, upTo]);
    return true;
  }

  /** Removes an entry whose message was removed (a send that will not happen). */
  async deleteForMessage(messageId: string, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute('DELETE FROM inbox_entries WHERE message_id = ?', [messageId]);
  }

  /** Forgets an agent's inbox (deprovisioning), so that an agent made later under the same id starts empty. */
  async deleteAgent(tx: SqlExecutor, agentId: string): Promise<void> {
    await tx.execute('DELETE FROM inbox_entries WHERE agent_id = ?', [agentId]);
    await tx.execute('DELETE FROM inbox_state WHERE agent_id = ?', [agentId]);
  }

  /** Deletes acknowledged entries created before `before`; returns how many. */
  async sweepAcknowledged(before: Date): Promise<number> {
    const { changes } = await this.db.execute(
      `DELETE FROM inbox_entries WHERE created_at < ?
       AND seq <= (SELECT s.acked_seq FROM inbox_state s WHERE s.agent_id = inbox_entries.agent_id)`,
      [before.toISOString()],
    );
    return changes;
  }
}

function toEntry(row: EntryRow): InboxEntry {
  return {
    cursor: Number(row.seq),
    id: row.id,
    type: row.type,
    agentId: row.agent_id,
    channel: row.channel,
    counterpart: row.counterpart,
    conversationId: row.conversation_id,
    messageId: row.message_id,
    status: row.status,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    createdAt: row.created_at,
  };
}
