import type { Channel } from '@switchboard/sdk';
import type { Database, SqlExecutor, SqlValue } from '../database.js';
import { conversationIdOf, normaliseAddress } from '../../protocol/conversations.js';

/** A message or call of a conversation, as its timeline lists it. */
export type TimelineRow =
  | {
      readonly kind: 'message';
      readonly id: string;
      readonly channel: Channel;
      readonly direction: 'inbound' | 'outbound';
      readonly from: string;
      readonly to: string;
      readonly subject: string | null;
      readonly body: string;
      readonly status: string;
      readonly externalId: string | null;
      readonly createdAt: string;
    }
  | {
      readonly kind: 'call';
      readonly id: string;
      readonly channel: 'voice';
      readonly direction: 'inbound' | 'outbound';
      readonly from: string;
      readonly to: string;
      readonly status: string;
      readonly durationSeconds: number;
      readonly endedAt: string | null;
      /** The stored transcript (JSON), null until the call's media closed. */
      readonly transcript: string | null;
      readonly createdAt: string;
    };

/** One address-derived conversation's activity on one channel with one address. */
export interface ActivityRow {
  readonly conversationId: string;
  readonly channel: Channel;
  readonly counterpart: string;
  readonly lastAt: string;
  readonly messages: number;
  readonly calls: number;
}

/** The position of a timeline item: its time, then its id. */
export interface TimelineCursor {
  readonly createdAt: string;
  readonly id: string;
}

interface LinkRow {
  address: string;
  address_conversation_id: string;
  conversation_id: string;
}

/**
 * Conversations: the messages and calls of an agent with one counterpart, by the conversation id each
 * row carries (migration 13), and the links an agent made between addresses. A linked address's own
 * conversation id keeps naming its rows; reads take the conversation's member ids.
 */
export class ConversationRepository {
  constructor(private readonly db: Database) {}

  /** The conversation an id belongs to now: the one it was linked into, else itself. */
  async resolve(agentId: string, conversationId: string, tx: SqlExecutor = this.db): Promise<string> {
    const row = await tx.get<{ conversation_id: string }>('SELECT conversation_id FROM contact_links WHERE agent_id = ? AND address_conversation_id = ?', [
      agentId,
      conversationId,
    ]);
    return row?.conversation_id ?? conversationId;
  }

  /** The address-derived ids whose rows make up a conversation (itself and every address linked into it). */
  async members(agentId: string, conversationId: string, tx: SqlExecutor = this.db): Promise<string[]> {
    const rows = await tx.query<{ address_conversation_id: string }>('SELECT address_conversation_id FROM contact_links WHERE agent_id = ? AND conversation_id = ?', [
      agentId,
      conversationId,
    ]);
    return [...new Set([conversationId, ...rows.map((r) => r.address_conversation_id)])];
  }

  /**
   * Links `addresses` into the conversation of `into` (itself resolved, if it was linked before), in
   * one transaction: each address's own conversation, and whatever had been linked into it, now
   * belong to that one. Returns the conversation's id.
   */
  async link(agentId: string, into: string, addresses: readonly string[], at: string): Promise<string> {
    return this.db.transaction(async (tx) => {
      const target = await this.resolve(agentId, conversationIdOf(agentId, into), tx);
      for (const address of addresses) {
        const own = conversationIdOf(agentId, address);
        if (own === target) continue;
        await tx.execute('UPDATE contact_links SET conversation_id = ? WHERE agent_id = ? AND conversation_id = ?', [target, agentId, own]);
        await tx.execute(
          `INSERT INTO contact_links (agent_id, address, address_conversation_id, conversation_id, linked_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (agent_id, address) DO UPDATE SET conversation_id = excluded.conversation_id, linked_at = excluded.linked_at`,
          [agentId, normaliseAddress(address), own, target, at],
        );
        await this.#mergeSummary(tx, agentId, own, target);
      }
      // The target itself was never linked away (resolve followed it), so no link row points it elsewhere.
      return target;
    });
  }

  /** The summary of `from` (what was linked into it came with it) folded into `into`'s: the later last activity. */
  async #mergeSummary(tx: SqlExecutor, agentId: string, from: string, into: string): Promise<void> {
    await tx.execute(
      `INSERT INTO conversation_summaries (agent_id, conversation_id, last_at)
       SELECT agent_id, ?, last_at FROM conversation_summaries WHERE agent_id = ? AND conversation_id = ?
       ON CONFLICT (agent_id, conversation_id) DO UPDATE SET last_at = excluded.last_at WHERE excluded.last_at > conversation_summaries.last_at`,
      [into, agentId, from],
    );
    await tx.execute('DELETE FROM conversation_summaries WHERE agent_id = ? AND conversation_id = ?', [agentId, from]);
  }

  /**
   * A page of the agent's conversations, latest activity first (then id, descending), after `after`:
   * one range of the summaries' index. A summary left under an id that was linked away meanwhile (a
   * row stored while the link committed, on PostgreSQL) is not listed.
   */
  async recent(agentId: string, limit: number, after?: TimelineCursor): Promise<{ conversationId: string; lastAt: string }[]> {
    const keyset = after ? 'AND s.last_at <= ? AND (s.last_at < ? OR s.conversation_id < ?)' : '';
    const rows = await this.db.query<{ conversation_id: string; last_at: string }>(
      `SELECT s.conversation_id, s.last_at FROM conversation_summaries s
       WHERE s.agent_id = ? ${keyset}
         AND NOT EXISTS (SELECT 1 FROM contact_links l WHERE l.agent_id = s.agent_id AND l.address_conversation_id = s.conversation_id AND l.conversation_id <> s.conversation_id)
       ORDER BY s.last_at DESC, s.conversation_id DESC LIMIT ?`,
      [agentId, ...(after ? [after.createdAt, after.createdAt, after.id] : []), limit],
    );
    return rows.map((r) => ({ conversationId: r.conversation_id, lastAt: r.last_at }));
  }

  /** The agent's links into the conversations `ids`: each linked address's own id and the conversation it joined. */
  async linksInto(agentId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<LinkRow>(
      `SELECT address, address_conversation_id, conversation_id FROM contact_links WHERE agent_id = ? AND conversation_id IN (${ids.map(() => '?').join(', ')})`,
      [agentId, ...ids],
    );
    return new Map(rows.map((r) => [r.address_conversation_id, r.conversation_id]));
  }

  /** Addresses linked into a conversation (its own address is not stored: the id is a hash of it). */
  async linkedAddresses(agentId: string, conversationId: string): Promise<string[]> {
    const rows = await this.db.query<{ address: string }>('SELECT address FROM contact_links WHERE agent_id = ? AND conversation_id = ? ORDER BY address', [
      agentId,
      conversationId,
    ]);
    return rows.map((r) => r.address);
  }

  /**
   * Newest first, at most `limit`, before `before`: the messages and calls of the agent whose
   * conversation id is one of `ids`.
   */
  async timeline(agentId: string, ids: readonly string[], limit: number, before?: TimelineCursor): Promise<TimelineRow[]> {
    const marks = ids.map(() => '?').join(', ');
    const page = (table: string, idColumn: string) => {
      const where = [`agent_id = ?`, `conversation_id IN (${marks})`];
      const params: SqlValue[] = [agentId, ...ids];
      if (before) {
        where.push(`(created_at < ? OR (created_at = ? AND ${idColumn} < ?))`);
        params.push(before.createdAt, before.createdAt, before.id);
      }
      return { sql: `SELECT * FROM ${table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, ${idColumn} DESC LIMIT ?`, params: [...params, limit] };
    };
    const messages = page('messages', 'id');
    const calls = page('calls', 'call_sid');
    const [messageRows, callRows] = await Promise.all([
      this.db.query<Record<string, unknown>>(messages.sql, messages.params),
      this.db.query<Record<string, unknown>>(calls.sql, calls.params),
    ]);
    const rows: TimelineRow[] = [...messageRows.map(messageItem), ...callRows.map(callItem)];
    return rows.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)).slice(0, limit);
  }

  /** The address-derived conversations `ids` of the agent with their activity, per channel and counterpart. */
  async activity(agentId: string, ids: readonly string[]): Promise<ActivityRow[]> {
    const only = `AND conversation_id IN (${ids.map(() => '?').join(', ')})`;
    const params = [agentId, ...ids];
    const [messages, calls] = await Promise.all([
      this.db.query<{ conversation_id: string; channel: Channel; counterpart: string; last_at: string; n: number }>(
        `SELECT conversation_id, channel, CASE WHEN direction = 'inbound' THEN from_address ELSE to_address END AS counterpart,
           MAX(created_at) AS last_at, COUNT(*) AS n
         FROM messages WHERE agent_id = ? ${only} GROUP BY conversation_id, channel, counterpart`,
        params,
      ),
      this.db.query<{ conversation_id: string; counterpart: string; last_at: string; n: number }>(
        `SELECT conversation_id, CASE WHEN direction = 'inbound' THEN from_address ELSE to_address END AS counterpart,
           MAX(created_at) AS last_at, COUNT(*) AS n
         FROM calls WHERE agent_id = ? ${only} GROUP BY conversation_id, counterpart`,
        params,
      ),
    ]);
    return [
      ...messages.map((r) => ({ conversationId: r.conversation_id, channel: r.channel, counterpart: r.counterpart, lastAt: r.last_at, messages: Number(r.n), calls: 0 })),
      ...calls.map((r) => ({ conversationId: r.conversation_id, channel: 'voice' as const, counterpart: r.counterpart, lastAt: r.last_at, messages: 0, calls: Number(r.n) })),
    ];
  }

  /** The latest message of the conversation (of `ids`) on a message channel, or on `channel`; its counterpart. */
  async lastMessage(agentId: string, ids: readonly string[], channel?: Channel): Promise<{ channel: Exclude<Channel, 'voice'>; counterpart: string } | undefined> {
    const row = await this.db.get<{ channel: Exclude<Channel, 'voice'>; counterpart: string }>(
      `SELECT channel, CASE WHEN direction = 'inbound' THEN from_address ELSE to_address END AS counterpart FROM messages
       WHERE agent_id = ? AND conversation_id IN (${ids.map(() => '?').join(', ')}) AND channel ${channel ? '= ?' : "<> 'voice'"}
       ORDER BY created_at DESC LIMIT 1`,
      [agentId, ...ids, ...(channel ? [channel] : [])],
    );
    return row;
  }

  /**
   * When the counterpart last wrote on `channel` in the conversation of `ids` (only `from`, when given):
   * the newest inbound message's time, along the messages_conversation index.
   */
  async lastInboundAt(agentId: string, ids: readonly string[], channel: Channel, from?: string): Promise<string | undefined> {
    const row = await this.db.get<{ created_at: string }>(
      `SELECT created_at FROM messages WHERE agent_id = ? AND conversation_id IN (${ids.map(() => '?').join(', ')}) AND channel = ? AND direction = 'inbound'
       ${from === undefined ? '' : 'AND from_address = ?'} ORDER BY created_at DESC LIMIT 1`,
      [agentId, ...ids, channel, ...(from === undefined ? [] : [from])],
    );
    return row?.created_at;
  }

  /** The subject of the conversation's latest email. */
  async lastSubject(agentId: string, ids: readonly string[]): Promise<string | undefined> {
    const row = await this.db.get<{ subject: string | null }>(
      `SELECT subject FROM messages WHERE agent_id = ? AND conversation_id IN (${ids.map(() => '?').join(', ')}) AND channel = 'email' AND subject IS NOT NULL
       ORDER BY created_at DESC LIMIT 1`,
      [agentId, ...ids],
    );
    return row?.subject ?? undefined;
  }

  /** The Message-IDs of the conversation's latest inbound emails (at most 20), oldest first: the thread a reply names. */
  async emailMessageIds(agentId: string, ids: readonly string[]): Promise<string[]> {
    const rows = await this.db.query<{ email_message_id: string }>(
      `SELECT email_message_id FROM messages WHERE agent_id = ? AND conversation_id IN (${ids.map(() => '?').join(', ')}) AND channel = 'email'
       AND direction = 'inbound' AND email_message_id IS NOT NULL ORDER BY created_at DESC LIMIT 20`,
      [agentId, ...ids],
    );
    return rows.map((r) => r.email_message_id).reverse();
  }

  /** Forgets an agent's links (deprovisioning); its rows' conversations are summarised unlinked again. */
  async deleteAgent(tx: SqlExecutor, agentId: string): Promise<void> {
    await tx.execute('DELETE FROM contact_links WHERE agent_id = ?', [agentId]);
    await tx.execute('DELETE FROM conversation_summaries WHERE agent_id = ?', [agentId]);
    await tx.execute(
      `INSERT INTO conversation_summaries (agent_id, conversation_id, last_at)
       SELECT agent_id, conversation_id, MAX(created_at) FROM (
         SELECT agent_id, conversation_id, created_at FROM messages WHERE agent_id = ? AND conversation_id IS NOT NULL
         UNION ALL SELECT agent_id, conversation_id, created_at FROM calls WHERE agent_id = ? AND conversation_id IS NOT NULL) a
       GROUP BY agent_id, conversation_id`,
      [agentId, agentId],
    );
  }

  /**
   * Names the conversation of up to `limit` messages and calls stored before migration 13; returns how
   * many it named (0: none left). Idempotent: every process may run it at once.
   */
  async backfill(limit: number): Promise<number> {
    let named = 0;
    for (const [table, id] of [
      ['messages', 'id'],
      ['calls', 'call_sid'],
    ] as const) {
      const rows = await this.db.query<{ key: string; agent_id: string; direction: 'inbound' | 'outbound'; from_address: string; to_address: string }>(
        `SELECT ${id} AS key, agent_id, direction, from_address, to_address FROM ${table} WHERE conversation_id IS NULL LIMIT ?`,
        [limit],
      );
      if (rows.length === 0) continue;
      await this.db.executeAll(
        rows.map((r) => ({
          sql: `UPDATE ${table} SET conversation_id = ? WHERE ${id} = ? AND conversation_id IS NULL`,
          params: [conversationIdOf(r.agent_id, r.direction === 'inbound' ? r.from_address : r.to_address), r.key],
        })),
      );
      named += rows.length;
    }
    return named;
  }
}

function messageItem(row: Record<string, unknown>): TimelineRow {
  return {
    kind: 'message',
    id: String(row.id),
    channel: row.channel as Channel,
    direction: row.direction as 'inbound' | 'outbound',
    from: String(row.from_address),
    to: String(row.to_address),
    subject: (row.subject as string | null) ?? null,
    body: String(row.body),
    status: String(row.status),
    externalId: (row.external_id as string | null) ?? null,
    createdAt: String(row.created_at),
  };
}

function callItem(row: Record<string, unknown>): TimelineRow {
  return {
    kind: 'call',
    id: String(row.call_sid),
    channel: 'voice',
    direction: row.direction as 'inbound' | 'outbound',
    from: String(row.from_address),
    to: String(row.to_address),
    status: String(row.status),
    durationSeconds: Number(row.duration_seconds),
    endedAt: (row.ended_at as string | null) ?? null,
    transcript: (row.transcript as string | null) ?? null,
    createdAt: String(row.created_at),
  };
}
