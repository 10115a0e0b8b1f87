import { createHash } from 'node:crypto';
import type { Channel } from '@switchboard/sdk';
import { newId } from '../../ids.js';
import type { Database, SqlCondition, SqlExecutor } from '../database.js';

/**
 * How the list keeps a person who was erased: a digest of the address, so they are still not
 * contacted, and nothing readable of them is left.
 */
export function erasedAddress(address: string): string {
  return `erased:${createHash('sha256').update(address).digest('hex')}`;
}

/** The scope of an entry every agent of the operator honours. */
export const OPERATOR_SCOPE = '*';

/** Where a do-not-contact entry (or its removal) came from. */
export type ContactBlockSource = 'sms-stop' | 'whatsapp-opt-out' | 'email-unsubscribe' | 'email-bounce' | 'complaint' | 'agent' | 'admin' | 'import';

/** An address no agent in its scope may contact. */
export interface ContactBlock {
  readonly address: string;
  /** `*` for every agent of the operator, else the one agent's id. */
  readonly scope: string;
  readonly source: ContactBlockSource;
  readonly reason: string | null;
  /** Who added it: `admin:<name>`, `agent:<id>`, `contact` (the person themselves), `import`. */
  readonly actor: string;
  readonly createdAt: string;
  /** The channels it keeps the person from, when the operator narrowed it; absent or null: every channel. */
  readonly channels?: readonly Channel[] | null;
}

/** One addition, narrowing or removal, as the log keeps it. */
export interface ContactBlockChange extends Omit<ContactBlock, 'createdAt' | 'channels'> {
  readonly action: 'added' | 'narrowed' | 'removed';
  readonly at: string;
}

interface BlockRow {
  address: string;
  scope: string;
  source: ContactBlockSource;
  reason: string | null;
  actor: string;
  created_at: string;
  channels?: string | null;
}

const toBlock = (row: BlockRow): ContactBlock => ({
  address: row.address,
  scope: row.scope,
  source: row.source,
  reason: row.reason,
  actor: row.actor,
  createdAt: row.created_at,
  channels: row.channels ? (JSON.parse(row.channels) as Channel[]) : null,
});

/** No quoted literal in it: SQLite's group commit coalesces a conditional INSERT only without one (insert-coalescer.ts). */
const NOT_LISTED = `NOT EXISTS (SELECT 1 FROM contact_blocks WHERE address IN (?, ?) AND scope IN (?, ?)
  AND (channels IS NULL OR length(channels) = 0 OR channels LIKE ?))`;

/** The do-not-contact list and its log: every entry has its source and time; every removal its actor and reason. */
export class DoNotContactRepository {
  constructor(private readonly db: Database) {}

  /** Adds an entry (false when the address was already listed in that scope); the log records it either way it changes. */
  add(block: Omit<ContactBlock, 'createdAt'>, at = new Date()): Promise<boolean> {
    const when = at.toISOString();
    return this.db.transaction(async (tx) => {
      const { changes } = await tx.execute(
        'INSERT INTO contact_blocks (address, scope, source, reason, actor, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (address, scope) DO NOTHING',
        [block.address, block.scope, block.source, block.reason, block.actor, when],
      );
      if (changes === 0) return false;
      await tx.execute(LOG_INSERT, [newId('dnc'), block.address, block.scope, 'added', block.source, block.reason, block.actor, when]);
      return true;
    });
  }

  /** Removes an entry, recording who and why (false when there was none). */
  remove(change: { address: string; scope: string; source: ContactBlockSource; reason: string | null; actor: string }, at = new Date()): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { changes } = await tx.execute('DELETE FROM contact_blocks WHERE address = ? AND scope = ?', [change.address, change.scope]);
      if (changes === 0) return false;
      await tx.execute(LOG_INSERT, [newId('dnc'), change.address, change.scope, 'removed', change.source, change.reason, change.actor, at.toISOString()]);
      return true;
    });
  }

  /**
   * Keeps an entry from only `channels` from now on (the operator narrowing a revocation, e.g. a STOP to
   * texts only), recording who and why; false when there is no such entry.
   */
  narrow(change: { address: string; scope: string; channels: readonly Channel[]; reason: string; actor: string }, at = new Date()): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const entry = await tx.get<BlockRow>('SELECT * FROM contact_blocks WHERE address = ? AND scope = ?', [change.address, change.scope]);
      if (!entry) return false;
      await tx.execute('UPDATE contact_blocks SET channels = ? WHERE address = ? AND scope = ?', [JSON.stringify(change.channels), change.address, change.scope]);
      await tx.execute(LOG_INSERT, [newId('dnc'), change.address, change.scope, 'narrowed', entry.source, `${change.reason} (now ${change.channels.join(', ')} only)`, change.actor, at.toISOString()]);
      return true;
    });
  }

  /**
   * The entry that keeps `agentId` from `address` (kept as itself, or erased) on `channel`: the
   * operator's, else the agent's own; an entry narrowed to other channels does not.
   */
  async blocking(address: string, agentId: string, channel?: Channel): Promise<ContactBlock | undefined> {
    const rows = await this.db.query<BlockRow>('SELECT * FROM contact_blocks WHERE address IN (?, ?) AND scope IN (?, ?) ORDER BY scope', [
      address,
      erasedAddress(address),
      OPERATOR_SCOPE,
      agentId,
    ]);
    return rows.map(toBlock).find((block) => !block.channels || channel === undefined || block.channels.includes(channel));
  }

  /**
   * The condition that no entry keeps `agentId` from `address` on `channel`, for a write that goes in
   * only then: the same entries as {@link blocking} (an empty or absent channel list keeps from every channel).
   */
  absentCondition(address: string, agentId: string, channel: Channel): SqlCondition {
    return { sql: NOT_LISTED, params: [address, erasedAddress(address), OPERATOR_SCOPE, agentId, `%"${channel}"%`] };
  }

  /** Keeps the person's entries and log under the digest of their address (an erasure); returns how many entries. */
  async pseudonymise(tx: SqlExecutor, address: string): Promise<number> {
    const erased = erasedAddress(address);
    const { changes } = await tx.execute('UPDATE contact_blocks SET address = ? WHERE address = ?', [erased, address]);
    await tx.execute('UPDATE contact_block_log SET address = ? WHERE address = ?', [erased, address]);
    return changes;
  }

  /** Entries in address order after `after`, in one scope or all. */
  async list({ scope, after = '', limit = 100 }: { scope?: string; after?: string; limit?: number } = {}): Promise<ContactBlock[]> {
    const rows = scope
      ? await this.db.query<BlockRow>('SELECT * FROM contact_blocks WHERE scope = ? AND address > ? ORDER BY address LIMIT ?', [scope, after, limit])
      : await this.db.query<BlockRow>('SELECT * FROM contact_blocks WHERE address > ? ORDER BY address, scope LIMIT ?', [after, limit]);
    return rows.map(toBlock);
  }

  /** Every addition and removal for an address, oldest first. */
  async history(address: string): Promise<ContactBlockChange[]> {
    const rows = await this.db.query<Omit<BlockRow, 'created_at'> & { action: ContactBlockChange['action']; at: string }>(
      'SELECT address, scope, action, source, reason, actor, at FROM contact_block_log WHERE address = ? ORDER BY at, id',
      [address],
    );
    return rows.map((row) => ({ address: row.address, scope: row.scope, action: row.action, source: row.source, reason: row.reason, actor: row.actor, at: row.at }));
  }
}

const LOG_INSERT = 'INSERT INTO contact_block_log (id, address, scope, action, source, reason, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
