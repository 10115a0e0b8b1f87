import type { ChannelPool } from '@switchboard/sdk';
import type { SqlExecutor } from '../database.js';

/** The pools channels are drawn from, as their table entries name them. Phone numbers serve both sms and voice. */
export type PoolName = ChannelPool;

/** One address in a pool, free when `agentId` is null. */
export interface PoolEntry {
  readonly pool: PoolName;
  readonly address: string;
  /** The provider the address is held at when it is not the channel's own: a sender for sends that go elsewhere. */
  readonly provider?: string;
  readonly agentId: string | null;
  readonly createdAt: string;
}

interface PoolRow {
  pool: PoolName;
  address: string;
  provider?: string;
  agent_id: string | null;
  created_at: string;
}

/** Pool entries and their assignment to agents. */
export class PoolRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * Adds addresses to a pool, held at `provider` ('' for the channel's own); ones already there are left
   * as they are. Returns how many were new.
   */
  async add(pool: PoolName, addresses: readonly string[], tx: SqlExecutor = this.db, provider = ''): Promise<number> {
    let added = 0;
    const now = new Date().toISOString();
    for (const address of addresses) {
      const { changes } = await tx.execute(
        'INSERT INTO pool_entries (pool, address, agent_id, created_at, provider) VALUES (?, ?, NULL, ?, ?) ON CONFLICT (pool, address) DO NOTHING',
        [pool, address, now, provider],
      );
      added += changes;
    }
    return added;
  }

  async list(pool?: PoolName): Promise<PoolEntry[]> {
    const rows = pool
      ? await this.db.query<PoolRow>('SELECT * FROM pool_entries WHERE pool = ? ORDER BY address', [pool])
      : await this.db.query<PoolRow>('SELECT * FROM pool_entries ORDER BY pool, address');
    return rows.map((r) => ({ pool: r.pool, address: r.address, ...(r.provider ? { provider: r.provider } : {}), agentId: r.agent_id, createdAt: r.created_at }));
  }

  async counts(): Promise<Record<PoolName, { total: number; free: number }>> {
    const rows = await this.db.query<{ pool: PoolName; total: number; free: number }>(
      'SELECT pool, COUNT(*) AS total, SUM(CASE WHEN agent_id IS NULL THEN 1 ELSE 0 END) AS free FROM pool_entries GROUP BY pool',
    );
    const counts = { phone: { total: 0, free: 0 }, whatsapp: { total: 0, free: 0 }, line: { total: 0, free: 0 }, email: { total: 0, free: 0 } };
    for (const r of rows) counts[r.pool] = { total: r.total, free: r.free };
    return counts;
  }

  /**
   * Takes the first free address of a pool for an agent, inside the caller's transaction, in one
   * statement. Concurrent claims never get the same address, and a claim never comes back empty
   * while another address is free: PostgreSQL skips rows other claims have locked instead of
   * waiting on them (and then finding them taken); SQLite has one writer.
   */
  async claim(tx: SqlExecutor, pool: PoolName, agentId: string, provider = ''): Promise<string | undefined> {
    const lock = tx.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const row = await tx.get<{ address: string }>(
      `UPDATE pool_entries SET agent_id = ? WHERE pool = ? AND address = (
         SELECT address FROM pool_entries WHERE pool = ? AND provider = ? AND agent_id IS NULL ORDER BY created_at, address LIMIT 1${lock}
       ) RETURNING address`,
      [agentId, pool, pool, provider],
    );
    return row?.address;
  }

  /** The free addresses of a pool at a provider ('' for the channel's own), oldest first, for a claim that picks among them (by country, say). */
  async freeAddresses(tx: SqlExecutor, pool: PoolName, provider = ''): Promise<string[]> {
    const rows = await tx.query<{ address: string }>('SELECT address FROM pool_entries WHERE pool = ? AND provider = ? AND agent_id IS NULL ORDER BY created_at, address', [pool, provider]);
    return rows.map((r) => r.address);
  }

  /** Claims one named address (made on demand, as email addresses are); false when someone holds it. */
  async claimAddress(tx: SqlExecutor, pool: PoolName, address: string, agentId: string): Promise<boolean> {
    await this.add(pool, [address], tx);
    const { changes } = await tx.execute('UPDATE pool_entries SET agent_id = ? WHERE pool = ? AND address = ? AND agent_id IS NULL', [
      agentId,
      pool,
      address,
    ]);
    return changes === 1;
  }

  /** Returns every address an agent holds to its pool. */
  async release(tx: SqlExecutor, agentId: string): Promise<PoolEntry[]> {
    const held = await tx.query<PoolRow>('SELECT * FROM pool_entries WHERE agent_id = ?', [agentId]);
    await tx.execute('UPDATE pool_entries SET agent_id = NULL WHERE agent_id = ?', [agentId]);
    return held.map((r) => ({ pool: r.pool, address: r.address, ...(r.provider ? { provider: r.provider } : {}), agentId: null, createdAt: r.created_at }));
  }
}

/**
 * A configured pool entry: an address, or `<provider>:<address>` for one held at another provider than
 * the channel's own (`telnyx:+15555550200`), a sender for the sends that go there.
 */
export function poolEntryOf(text: string): { provider: string; address: string } {
  const at = /^([a-z][a-z0-9-]*):(.+)$/.exec(text.trim());
  return at ? { provider: at[1]!, address: at[2]!.trim() } : { provider: '', address: text.trim() };
}
