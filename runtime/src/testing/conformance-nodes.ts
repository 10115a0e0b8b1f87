import type { Database } from '../store/database.js';
import { migrate } from '../store/migrate.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import { Store } from '../store/store.js';

/** A fresh, empty database that the suite can open several connections to, as several nodes would. */
export interface DatabaseUnderTest {
  /** Opens one more connection (a `Database`) to the same database. */
  connect(): Promise<Database>;
  /** Removes the database; every connection the suite opened is closed by then. */
  dispose(): Promise<void>;
}

/** Runs `work` with `n` migrated connections to a fresh database, and cleans up whatever happens. */
export type WithNodes = (n: number, work: (stores: Store[]) => Promise<void>, migrated?: boolean) => Promise<void>;

/** `WithNodes` over the databases `create` gives, one per call. */
export function nodesOf(create: () => Promise<DatabaseUnderTest>): WithNodes {
  return async (n, work, migrated = true) => {
    const target = await create();
    const dbs: Database[] = [];
    try {
      for (let i = 0; i < n; i++) dbs.push(await target.connect());
      if (migrated) await migrate(dbs[0]!, MIGRATIONS);
      await work(dbs.map((db) => new Store(db)));
    } finally {
      await Promise.allSettled(dbs.map((db) => db.close()));
      await target.dispose();
    }
  };
}

/** An inbound SMS of `agentId`, received at `createdAt`. */
export function inbound(agentId: string, externalId: string, createdAt: string): MessageRecord {
  return {
    id: `msg-${externalId}`, agentId, channel: 'sms', direction: 'inbound', from: '+14155550100', to: '+12025550101', subject: null, body: 'hi', html: null,
    mediaUrls: [], externalId, status: 'received', segments: 1, cost: null, error: null, delivery: 'pending', createdAt, updatedAt: createdAt,
  };
}
