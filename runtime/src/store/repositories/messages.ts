import type { Channel, MessageStatus, TemplateRef } from '@switchboard/sdk';
import type { Dialect, SqlCondition, SqlExecutor, SqlStatement } from '../database.js';
import type { Tenure } from '../../tenure.js';
import { claimAsk, dueForAsk, type UnsettledTable } from './reconcile-claim.js';
import { fenceCondition } from './tenures.js';
import { conversationIdOf, counterpartOf } from '../../protocol/conversations.js';

export type Direction = 'inbound' | 'outbound';

/** Where an inbound message is on its way to the agent. */
export type DeliveryState = 'pending' | 'done';

/** A message as stored. */
export interface MessageRecord {
  readonly id: string;
  readonly agentId: string;
  readonly channel: Channel;
  readonly direction: Direction;
  readonly from: string;
  readonly to: string;
  readonly subject: string | null;
  readonly body: string;
  readonly html: string | null;
  readonly mediaUrls: readonly string[];
  readonly externalId: string | null;
  readonly status: MessageStatus;
  readonly segments: number;
  readonly cost: number | null;
  readonly error: string | null;
  readonly delivery: DeliveryState;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Inbound email: its RFC 5322 Message-ID, when the provider reported it. */
  readonly emailMessageId?: string | null;
  /** Outbound email replying in a thread: the Message-ID it answers, and the thread's (oldest first). */
  readonly inReplyTo?: string | null;
  readonly references?: readonly string[];
  /** Outbound without a final status, asked about at its provider before: when it is next to be (the reconciler). */
  readonly nextAskAt?: string | null;
  /** Outbound WhatsApp sent as a provider-approved template rather than free-form text. */
  readonly template?: TemplateRef | null;
  /** The provider that sent it (outbound, once sent) or delivered it (inbound), when known. */
  readonly provider?: string | null;
}

interface MessageRow {
  id: string;
  agent_id: string;
  channel: Channel;
  direction: Direction;
  from_address: string;
  to_address: string;
  subject: string | null;
  body: string;
  html: string | null;
  media_urls: string;
  external_id: string | null;
  status: MessageStatus;
  segments: number;
  cost: number | null;
  error: string | null;
  delivery: DeliveryState;
  created_at: string;
  updated_at: string;
  email_message_id: string | null;
  in_reply_to: string | null;
  email_references: string | null;
  next_ask_at?: string | null;
  template?: string | null;
  provider?: string | null;
}

const COLUMNS = `id, agent_id, channel, direction, from_address, to_address, subject, body, html, media_urls,
  external_id, status, segments, cost, error, delivery, created_at, updated_at, conversation_id, email_message_id, in_reply_to, email_references, template, provider`;
const ROW = '?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?';
const INSERT = `INSERT INTO messages (${COLUMNS}) VALUES (${ROW})`;
const INSERT_INBOUND = `${INSERT} ON CONFLICT (agent_id, channel, direction, external_id) DO NOTHING`;
/**
 * An inbound message, stored only while its agent exists: a gateway stores webhooks outside the agent's
 * mailbox, so a deprovision may be under way. PostgreSQL's share lock on the agent's row makes the two
 * wait for each other (deprovision locks the row first): the message is in before the erase, or not at
 * all. SQLite has one writer, in the one process that also deprovisions: the plain insert, which its
 * group commit coalesces into multi-row statements (the guarded form cannot be, and cost a webhook 50 %).
 */
const INSERT_INBOUND_FOR_AGENT: Record<Dialect, string> = {
  sqlite: INSERT_INBOUND,
  postgres: `INSERT INTO messages (${COLUMNS}) SELECT ${ROW}
  WHERE EXISTS (SELECT 1 FROM agents WHERE agent_id = ? FOR KEY SHARE)
  ON CONFLICT (agent_id, channel, direction, external_id) DO NOTHING`,
};

/** An outbound message whose provider call has no outcome stored (the partial index messages_unsent). */
const UNSENT = "external_id IS NULL AND direction = 'outbound' AND status = 'queued'";
/** The statuses of an outbound message still waiting for its final one; every other status is final. */
export const UNSETTLED_STATUSES: readonly MessageStatus[] = ['queued', 'accepted', 'sending', 'sent'];
/**
 * Where each status stands in a message's life. Providers post receipts out of order (Twilio says so
 * of its status callbacks): a status never replaces a later one, so a `sent` that comes after
 * `delivered` changes nothing. `unknown` (the reconciler's) stands with `sent`, so any receipt after
 * it is taken.
 */
const STAGE: Record<MessageStatus, number> = { queued: 0, accepted: 1, sending: 2, sent: 3, unknown: 3, delivered: 4, undelivered: 4, failed: 4, received: 4, read: 5 };

/** Whether `to` would take a message at `from` back to an earlier stage. */
export function regresses(from: MessageStatus, to: MessageStatus): boolean {
  return STAGE[to] < STAGE[from];
}

/** `AND status NOT IN (…)`: the statuses `status` may not replace, as SQL (constants, so one text per status). */
function notPast(status: MessageStatus): string {
  const later = (Object.keys(STAGE) as MessageStatus[]).filter((s) => regresses(s, status));
  return later.length === 0 ? '' : ` AND status NOT IN (${later.map((s) => `'${s}'`).join(', ')})`;
}

/** An outbound message sent and without a final status (the partial indexes messages_unasked and messages_asked). */
const UNSETTLED = `direction = 'outbound' AND external_id IS NOT NULL AND status IN (${UNSETTLED_STATUSES.map((s) => `'${s}'`).join(', ')})`;
const UNSETTLED_MESSAGES: UnsettledTable = { table: 'messages', keyColumn: 'id', unsettled: UNSETTLED };
/** An inbound message neither handed to the agent nor dead-lettered. */
const UNDELIVERED = "m.delivery = 'pending' AND NOT EXISTS (SELECT 1 FROM dead_letters d WHERE d.message_id = m.id)";

/** Messages in both directions, deduplicated by provider id. */
export class MessageRepository {
  constructor(private readonly db: SqlExecutor) {}

  async insert(message: MessageRecord, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute(INSERT, params(message));
  }

  /**
   * The INSERT of an outbound message, to run in an atomic group, that stores nothing (0 changes)
   * unless every condition holds (the recipient not on the do-not-contact list, not opted out of the
   * sender) and, with a fenced tenure (a cluster node's), that tenure is still the partition's current
   * one: the checks and the write are one statement.
   */
  insertOutboundStatement(message: MessageRecord, conditions: readonly SqlCondition[], tenure?: Tenure): SqlStatement {
    const all = tenure?.fence ? [...conditions, fenceCondition(tenure.fence, this.db.dialect)] : conditions;
    if (all.length === 0) return { sql: INSERT, params: params(message) };
    return {
      sql: `INSERT INTO messages (${COLUMNS}) SELECT ${ROW} WHERE ${all.map((c) => c.sql).join(' AND ')}`,
      params: [...params(message), ...all.flatMap((c) => c.params)],
    };
  }

  /**
   * Stores an inbound message unless one with the same provider id is already stored for the agent
   * (a provider retry). Returns false for a duplicate.
   */
  async insertInbound(message: MessageRecord, tx: SqlExecutor = this.db): Promise<boolean> {
    const { sql, params } = this.insertInboundStatement(message);
    const { changes } = await tx.execute(sql, params);
    return changes === 1;
  }

  /** The INSERT of `insertInbound`, for an atomic group: 1 change when stored, 0 for a duplicate. */
  insertInboundStatement(message: MessageRecord): SqlStatement {
    return { sql: INSERT_INBOUND, params: params(message) };
  }

  /** The INSERT of a provider's message, for an atomic group, stored only while its agent exists (a deprovision may be under way). */
  insertInboundForAgentStatement(message: MessageRecord): SqlStatement {
    const { dialect } = this.db;
    return { sql: INSERT_INBOUND_FOR_AGENT[dialect], params: dialect === 'postgres' ? [...params(message), message.agentId] : params(message) };
  }

  async get(id: string): Promise<MessageRecord | undefined> {
    const row = await this.db.get<MessageRow>('SELECT * FROM messages WHERE id = ?', [id]);
    return row && toRecord(row);
  }

  async findOutbound(agentId: string, externalId: string): Promise<MessageRecord | undefined> {
    const row = await this.db.get<MessageRow>("SELECT * FROM messages WHERE agent_id = ? AND external_id = ? AND direction = 'outbound'", [
      agentId,
      externalId,
    ]);
    return row && toRecord(row);
  }

  /** An outbound message stored before its provider call and not yet sent or failed (its node may have died). */
  async unsent(id: string): Promise<MessageRecord | undefined> {
    const row = await this.db.get<MessageRow>(`SELECT * FROM messages WHERE id = ? AND ${UNSENT}`, [id]);
    return row && toRecord(row);
  }

  /** Outbound messages stored before `before` and still unsent, oldest first. */
  async unsentBefore(before: Date, limit = 1000): Promise<MessageRecord[]> {
    const rows = await this.db.query<MessageRow>(`SELECT * FROM messages WHERE created_at < ? AND ${UNSENT} ORDER BY created_at LIMIT ?`, [before.toISOString(), limit]);
    return rows.map(toRecord);
  }

  /** Sent messages without a final status due for an ask at `now` (first asks: stored before `firstAskCut`), the reconciler's. */
  async dueForAsk(firstAskCut: Date, now: Date, limit = 500): Promise<MessageRecord[]> {
    return (await dueForAsk<MessageRow>(this.db, UNSETTLED_MESSAGES, firstAskCut, now, limit)).map(toRecord);
  }

  /** Takes the due ask about an unsettled message (compare-and-set of its next ask's time, from `previous` to `next`). */
  async claimAsk(id: string, previous: string | null, next: Date): Promise<boolean> {
    return claimAsk(this.db, UNSETTLED_MESSAGES, id, previous, next);
  }

  /** Records an unsettled message `unknown` with the reason, and nothing else (its agent is gone: no one to tell). */
  async settleUnknown(id: string, reason: string): Promise<void> {
    await this.db.execute(`UPDATE messages SET status = 'unknown', error = COALESCE(error, ?), updated_at = ? WHERE id = ? AND ${UNSETTLED}`, [reason, new Date().toISOString(), id]);
  }

  /**
   * The UPDATE that records the provider's answer to a send: which provider took it and from which of
   * the agent's senders (another than the stored one when the send went to another provider).
   */
  markSentStatement(id: string, result: { externalId: string; status: MessageStatus; cost: number | null; segments: number; body?: string }, via: { provider: string; from: string }): SqlStatement {
    // A provider that composed the text (a template it rendered) gives it: the record keeps what was sent.
    if (result.body !== undefined) {
      return {
        sql: 'UPDATE messages SET external_id = ?, status = ?, cost = ?, segments = ?, body = ?, provider = ?, from_address = ?, updated_at = ? WHERE id = ?',
        params: [result.externalId, result.status, result.cost, result.segments, result.body, via.provider, via.from, new Date().toISOString(), id],
      };
    }
    return {
      sql: 'UPDATE messages SET external_id = ?, status = ?, cost = ?, segments = ?, provider = ?, from_address = ?, updated_at = ? WHERE id = ?',
      params: [result.externalId, result.status, result.cost, result.segments, via.provider, via.from, new Date().toISOString(), id],
    };
  }

  /** Removes a message that was stored for a send that will not happen. */
  async delete(id: string, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute('DELETE FROM messages WHERE id = ?', [id]);
  }

  async markFailed(id: string, error: string, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute("UPDATE messages SET status = 'failed', error = ?, updated_at = ? WHERE id = ?", [error, new Date().toISOString(), id]);
  }

  /** The UPDATE that applies a delivery receipt; a receipt without a price keeps the cost already known. */
  applyStatusStatement(agentId: string, externalId: string, status: MessageStatus, cost: number | null, error: string | null, expected?: MessageStatus): SqlStatement {
    // `expected`: only over the status the caller read (the reconciler's answer must not undo a receipt that came meanwhile).
    // Never over a later status (a receipt that came out of order).
    return {
      sql: `UPDATE messages SET status = ?, cost = COALESCE(?, cost), error = COALESCE(?, error), updated_at = ?
       WHERE agent_id = ? AND external_id = ? AND direction = 'outbound'${expected === undefined ? '' : ' AND status = ?'}${notPast(status)}`,
      params: [status, cost, error, new Date().toISOString(), agentId, externalId, ...(expected === undefined ? [] : [expected])],
    };
  }

  async markDelivered(id: string, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute("UPDATE messages SET delivery = 'done', updated_at = ? WHERE id = ?", [new Date().toISOString(), id]);
  }

  /** Inbound messages neither handed to the agent nor dead-lettered (after a crash, for example). */
  async pendingDeliveries(limit = 1000): Promise<MessageRecord[]> {
    const rows = await this.db.query<MessageRow>(`SELECT * FROM messages m WHERE ${UNDELIVERED} ORDER BY m.created_at LIMIT ?`, [limit]);
    return rows.map(toRecord);
  }

  /** An inbound message stored under this provider id and still to be delivered, if any. */
  async pendingInbound(agentId: string, channel: Channel, externalId: string): Promise<MessageRecord | undefined> {
    const [row] = await this.db.query<MessageRow>(
      `SELECT * FROM messages m WHERE m.agent_id = ? AND m.channel = ? AND m.direction = 'inbound' AND m.external_id = ? AND ${UNDELIVERED}`,
      [agentId, channel, externalId],
    );
    return row && toRecord(row);
  }

  /** The message if it is still to be delivered (neither handed over nor dead-lettered). */
  async pendingDelivery(id: string): Promise<MessageRecord | undefined> {
    const [row] = await this.db.query<MessageRow>(`SELECT * FROM messages m WHERE m.id = ? AND ${UNDELIVERED}`, [id]);
    return row && toRecord(row);
  }

  /**
   * {@link pendingDelivery} and where its agent takes callbacks, in one read: the message if it is
   * still to be delivered, with the agent's callback URL and sealed signing secret (null when the
   * agent has none, or is gone).
   */
  async pendingDeliveryWithCallback(id: string): Promise<{ message: MessageRecord; callbackUrl: string | null; sealedSigningSecret: string | null } | undefined> {
    const [row] = await this.db.query<MessageRow & { agent_callback_url: string | null; agent_signing_secret: string | null }>(
      `SELECT m.*, a.callback_url AS agent_callback_url, a.signing_secret AS agent_signing_secret
       FROM messages m LEFT JOIN agents a ON a.agent_id = m.agent_id WHERE m.id = ? AND ${UNDELIVERED}`,
      [id],
    );
    return row && { message: toRecord(row), callbackUrl: row.agent_callback_url, sealedSigningSecret: row.agent_signing_secret };
  }

  /** Message counts per channel for one agent. */
  async countByChannel(agentId: string): Promise<Partial<Record<Channel, number>>> {
    const rows = await this.db.query<{ channel: Channel; n: number }>('SELECT channel, COUNT(*) AS n FROM messages WHERE agent_id = ? GROUP BY channel', [
      agentId,
    ]);
    return Object.fromEntries(rows.map((r) => [r.channel, r.n]));
  }
}

function params(m: MessageRecord) {
  return [
    m.id,
    m.agentId,
    m.channel,
    m.direction,
    m.from,
    m.to,
    m.subject,
    m.body,
    m.html,
    JSON.stringify(m.mediaUrls),
    m.externalId,
    m.status,
    m.segments,
    m.cost,
    m.error,
    m.delivery,
    m.createdAt,
    m.updatedAt,
    conversationIdOf(m.agentId, counterpartOf(m)),
    m.emailMessageId ?? null,
    m.inReplyTo ?? null,
    m.references?.length ? m.references.join(' ') : null,
    m.template ? JSON.stringify(m.template) : null,
    m.provider ?? null,
  ];
}

function toRecord(row: MessageRow): MessageRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    channel: row.channel,
    direction: row.direction,
    from: row.from_address,
    to: row.to_address,
    subject: row.subject,
    body: row.body,
    html: row.html,
    mediaUrls: JSON.parse(row.media_urls) as string[],
    externalId: row.external_id,
    status: row.status,
    segments: row.segments,
    cost: row.cost,
    error: row.error,
    delivery: row.delivery,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    // Email thread fields only where they are set: most messages have none.
    ...(row.email_message_id ? { emailMessageId: row.email_message_id } : {}),
    ...(row.in_reply_to ? { inReplyTo: row.in_reply_to } : {}),
    ...(row.email_references ? { references: row.email_references.split(' ') } : {}),
    ...(row.next_ask_at ? { nextAskAt: row.next_ask_at } : {}),
    ...(row.template ? { template: JSON.parse(row.template) as TemplateRef } : {}),
    ...(row.provider ? { provider: row.provider } : {}),
  };
}
