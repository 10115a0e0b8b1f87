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
 * conversation yet (the transcript; likewise before the update); or its message with a status other
 * than the one being written (a receipt over a message its process keeps; before the update).
 */
export type EntryCondition =
  | { readonly messageStored: string }
  | { readonly callLogged: string }
  | { readonly callStatusChangesTo: { readonly callSid: string; readonly status: string } }
  | { readonly messageStatusChangesTo: { readonly messageId: string; readonly status: string } }
  | { readonly callConversationMissing: string }
  /** The message, or the call, still has this status (the entry's statements run before the update that changes it). */
  | { readonly messageStatusIs: { readonly messageId: string; readonly status: string } }
  | { readonly callStatusIs: { readonly callSid: string; readonly status: string } };

/** The condition's columns in the view `inbox_appends` (migrations 16 and 20): its kind, key and status. */
function condition(when: EntryCondition): [kind: string, key: string, status: string | null] {
  if ('messageStored' in when) return ['message', when.messageStored, null];
  if ('callLogged' in when) return ['call', when.callLogged, null];
  if ('callStatusChangesTo' in when) return ['call-status', when.callStatusChangesTo.callSid, when.callStatusChangesTo.status];
  if ('messageStatusChangesTo' in when) return ['message-status', when.messageStatusChangesTo.messageId, when.messageStatusChangesTo.status];
  if ('callStatusIs' in when) return ['call-status-is', when.callStatusIs.callSid, when.callStatusIs.status];
  if ('messageStatusIs' in when) return ['message-status-is', when.messageStatusIs.messageId, when.messageStatusIs.status];
  return ['call-unlinked', when.callConversationMissing, null];
}

/**
 * One plain INSERT, whose view's trigger gives the entry the agent's next cursor when its condition
 * holds. It must run after the statements of its group it depends on; SQLite's group commit makes
 * many of them one multi-row statement.
 */
const APPEND = `INSERT INTO inbox_appends (agent_id, id, type, channel, counterpart, conversation_id, message_id, status, payload, created_at, when_kind, when_key, when_status)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Agents' inboxes: entries by per-agent cursor, and each agent's acknowledged cursor. */
export class InboxRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * The statement that appends `entry` at the agent's next cursor, to run in the event's own atomic
   * group; by default conditional on the entry's message being stored. Its `changes` say nothing of
   * the entry (SQLite does not count the rows a view's trigger writes): read the event's own statement.
   */
  appendStatement(entry: NewInboxEntry, when: EntryCondition = { messageStored: entry.messageId ?? '' }): SqlStatement {
    return {
      inboxOf: entry.agentId,
      sql: APPEND,
      params: [
        entry.agentId,
        entry.id,
        entry.type,
        entry.channel,
        entry.counterpart,
        entry.conversationId,
        entry.messageId,
        entry.status,
        JSON.stringify(entry.payload),
        entry.createdAt,
        ...condition(when),
      ],
    };
  }

  /** Appends `entry` inside a transaction (the paths that already hold one). */
  async append(tx: SqlExecutor, entry: NewInboxEntry): Promise<void> {
    const { sql, params } = this.appendStatement(entry);
    await tx.execute(sql, params);
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
