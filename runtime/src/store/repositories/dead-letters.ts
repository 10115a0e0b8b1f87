import type { Channel } from '@switchboard/sdk';
import type { SqlExecutor, SqlStatement, SqlValue } from '../database.js';
import { newId } from '../../ids.js';
import type { Direction, MessageRecord } from './messages.js';

/** Why a message became a dead letter. */
export type DeadLetterReason = 'agent_offline' | 'callback_failed' | 'send_failed' | 'voicemail';

/** A message that could not reach its destination; the contract's DeadLetter. */
export interface DeadLetter {
  readonly id: string;
  readonly agentId: string;
  readonly channel: Channel;
  readonly direction: Direction;
  readonly reason: DeadLetterReason;
  readonly from: string;
  readonly to: string;
  readonly subject?: string;
  readonly body: string;
  readonly mediaUrls: readonly string[];
  readonly externalId: string | null;
  readonly error?: string;
  readonly attempts: number;
  readonly createdAt: string;
}

/** A new dead letter: a fresh id and the time now, around what the caller says of it. The one place letters are made. */
export function newDeadLetter(letter: Omit<DeadLetter, 'id' | 'createdAt'>): DeadLetter {
  return { id: newId('dl'), createdAt: new Date().toISOString(), ...letter };
}

/** The dead letter of a stored message: its parties and content, why it is dead and after how many attempts. */
export function messageDeadLetter(message: MessageRecord, reason: DeadLetterReason, attempts: number, error?: string): DeadLetter {
  return newDeadLetter({
    agentId: message.agentId,
    channel: message.channel,
    direction: message.direction,
    reason,
    from: message.from,
    to: message.to,
    ...(message.subject === null ? {} : { subject: message.subject }),
    body: message.body,
    mediaUrls: message.mediaUrls,
    externalId: message.externalId,
    ...(error === undefined ? {} : { error }),
    attempts,
  });
}

interface DeadLetterRow {
  id: string;
  agent_id: string;
  channel: Channel;
  direction: Direction;
  reason: DeadLetterReason;
  from_address: string;
  to_address: string;
  subject: string | null;
  body: string;
  media_urls: string;
  external_id: string | null;
  error: string | null;
  attempts: number;
  created_at: string;
}

const COLUMNS = `id, agent_id, channel, direction, reason, from_address, to_address, subject, body, media_urls,
  external_id, error, attempts, created_at, message_id`;
const ROW = '?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?';
const INSERT = `INSERT INTO dead_letters (${COLUMNS}) VALUES (${ROW})`;
const INSERT_IF_MESSAGE_STORED = `INSERT INTO dead_letters (${COLUMNS}) SELECT ${ROW} WHERE EXISTS (SELECT 1 FROM messages WHERE id = ?)`;

/** A letter's column values, `message_id` aside. */
function values(letter: DeadLetter): SqlValue[] {
  return [
    letter.id,
    letter.agentId,
    letter.channel,
    letter.direction,
    letter.reason,
    letter.from,
    letter.to,
    letter.subject ?? null,
    letter.body,
    JSON.stringify(letter.mediaUrls),
    letter.externalId,
    letter.error ?? null,
    letter.attempts,
    letter.createdAt,
  ];
}

/** Dead letters, handed out exactly once. */
export class DeadLetterRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * Stores a letter. With `messageId` the letter also ends that stored message's delivery: a message
   * with a letter is never re-driven (see MessageRepository.pendingDeliveries).
   */
  async insert(letter: DeadLetter, tx: SqlExecutor = this.db, messageId: string | null = null): Promise<void> {
    const { sql, params } = this.insertStatement(letter, messageId);
    await tx.execute(sql, params);
  }

  /** The INSERT of a letter, to run in an atomic group. */
  insertStatement(letter: DeadLetter, messageId: string | null = null): SqlStatement {
    return { sql: INSERT, params: [...values(letter), messageId] };
  }

  /**
   * The INSERT of a letter that ends the delivery of a message stored in the same atomic group: it
   * goes in only when that message did (not for a provider's retry, whose message was skipped).
   */
  insertForStoredMessageStatement(letter: DeadLetter, messageId: string): SqlStatement {
    return { sql: INSERT_IF_MESSAGE_STORED, params: [...values(letter), messageId, messageId] };
  }

  /**
   * Returns the oldest pending letters and marks them acknowledged, in one statement: a letter is
   * handed to one taker only, also when several nodes take for the same agent at once (PostgreSQL
   * skips rows another taker has locked; SQLite has one writer).
   */
  async take(tx: SqlExecutor, agentId: string, channel: Channel | undefined, limit: number): Promise<DeadLetter[]> {
    const byChannel = channel ? ' AND channel = ?' : '';
    const lock = tx.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const rows = await tx.query<DeadLetterRow>(
      `UPDATE dead_letters SET acknowledged_at = ? WHERE id IN (
         SELECT id FROM dead_letters WHERE agent_id = ?${byChannel} AND acknowledged_at IS NULL ORDER BY created_at, id LIMIT ?${lock}
       ) RETURNING *`,
      channel ? [new Date().toISOString(), agentId, channel, limit] : [new Date().toISOString(), agentId, limit],
    );
    // RETURNING keeps no order.
    rows.sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
    return rows.map(toLetter);
  }

  async countPending(agentId?: string): Promise<number> {
    const row = agentId
      ? await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM dead_letters WHERE agent_id = ? AND acknowledged_at IS NULL', [agentId])
      : await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM dead_letters WHERE acknowledged_at IS NULL');
    return row?.n ?? 0;
  }
}

function toLetter(row: DeadLetterRow): DeadLetter {
  return {
    id: row.id,
    agentId: row.agent_id,
    channel: row.channel,
    direction: row.direction,
    reason: row.reason,
    from: row.from_address,
    to: row.to_address,
    ...(row.subject === null ? {} : { subject: row.subject }),
    body: row.body,
    mediaUrls: JSON.parse(row.media_urls) as string[],
    externalId: row.external_id,
    ...(row.error === null ? {} : { error: row.error }),
    attempts: row.attempts,
    createdAt: row.created_at,
  };
}
