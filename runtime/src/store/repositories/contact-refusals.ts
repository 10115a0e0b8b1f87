import { newId } from '../../ids.js';
import type { SqlExecutor } from '../database.js';

/** One contact the policy refused: it never reached a provider. */
export interface ContactRefusal {
  readonly id: string;
  readonly agentId: string;
  readonly channel: string;
  /** The person as the list and consents key them (the number, the lower-cased email address). */
  readonly address: string;
  /** RECIPIENT_OPTED_OUT, OUTSIDE_CALLING_HOURS, CONSENT_REQUIRED. */
  readonly code: string;
  /** A call (placed, bridged, a voice message) rather than a message. */
  readonly call: boolean;
  /** The sentence the agent was given. */
  readonly message: string;
  readonly at: string;
}

interface RefusalRow {
  id: string;
  agent_id: string;
  channel: string;
  address: string;
  code: string;
  is_call: number;
  message: string;
  at: string;
}

const toRefusal = (row: RefusalRow): ContactRefusal => ({
  id: row.id,
  agentId: row.agent_id,
  channel: row.channel,
  address: row.address,
  code: row.code,
  call: Number(row.is_call) === 1,
  message: row.message,
  at: row.at,
});

/** Which refusals a read asks for: newest first, before a cursor, for one agent or code. */
export interface RefusalQuery {
  readonly agentId?: string;
  readonly code?: string;
  /** The `at|id` of the last refusal of the page before. */
  readonly before?: { readonly at: string; readonly id: string };
  readonly limit: number;
}

/** The contacts the policy refused, for the operator: stored as they happen, read newest first. */
export class ContactRefusalRepository {
  constructor(private readonly db: SqlExecutor) {}

  async record(refusal: Omit<ContactRefusal, 'id'>): Promise<ContactRefusal> {
    const stored = { id: newId('rfs'), ...refusal };
    await this.db.execute('INSERT INTO contact_refusals (id, agent_id, channel, address, code, is_call, message, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      stored.id,
      stored.agentId,
      stored.channel,
      stored.address,
      stored.code,
      stored.call ? 1 : 0,
      stored.message,
      stored.at,
    ]);
    return stored;
  }

  async list(query: RefusalQuery): Promise<ContactRefusal[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.agentId !== undefined) {
      where.push('agent_id = ?');
      params.push(query.agentId);
    }
    if (query.code !== undefined) {
      where.push('code = ?');
      params.push(query.code);
    }
    if (query.before) {
      where.push('(at < ? OR (at = ? AND id < ?))');
      params.push(query.before.at, query.before.at, query.before.id);
    }
    const rows = await this.db.query<RefusalRow>(
      `SELECT * FROM contact_refusals ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT ?`,
      [...params, query.limit],
    );
    return rows.map(toRefusal);
  }

  /** Refusals since `since`, by code (the dashboard's line). */
  async countsSince(since: string): Promise<Record<string, number>> {
    const rows = await this.db.query<{ code: string; n: number | string }>('SELECT code, COUNT(*) AS n FROM contact_refusals WHERE at >= ? GROUP BY code', [since]);
    return Object.fromEntries(rows.map((row) => [row.code, Number(row.n)]));
  }

  /** Removes refusals older than `before` (the retention sweep); returns how many. */
  async sweep(before: Date): Promise<number> {
    return (await this.db.execute('DELETE FROM contact_refusals WHERE at < ?', [before.toISOString()])).changes;
  }
}
