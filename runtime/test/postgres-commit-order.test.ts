import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { openStore, type Store } from '../src/internal.js';
import { receivedEntry } from '../src/inbox/entries.js';
import type { MessageRecord } from '../src/store/repositories/messages.js';
import { createTestDatabase } from '../src/testing/index.js';

/**
 * Two processes' group commits on one PostgreSQL database (a gateway storing inbound messages at the edge,
 * a runtime node storing sends): each commit appends to several agents' inboxes, and every append takes its
 * agent's inbox row and conversation summary. Taken in different orders by two commits, they deadlock, and
 * each deadlock costs PostgreSQL's 1 s `deadlock_timeout` and the batch's replay one write at a time.
 */
const AGENTS = 4;
const CONVERSATIONS = 4;
const ROUNDS = 12;

function message(agentId: string, counterpart: string, n: string): MessageRecord {
  const at = new Date().toISOString();
  return {
    id: `msg-${n}`, agentId, channel: 'sms', direction: 'inbound', from: counterpart, to: '+12025550101', subject: null, body: n,
    html: null, mediaUrls: [], externalId: `SM${n}`, status: 'received', segments: 1, cost: null, error: null, delivery: 'done', createdAt: at, updatedAt: at,
  };
}

/** One write as a webhook or a send makes it: the message and its inbox entry. */
const write = (store: Store, m: MessageRecord) => store.db.executeAll([store.messages.insertOutboundStatement(m, []), store.inbox.appendStatement(receivedEntry(m))]);

describe('PostgreSQL: group commits of two processes', () => {
  it('take the agents they append to in one order: no deadlock, whatever order their writes came in', { timeout: 120_000 }, async () => {
    const database = await createTestDatabase();
    const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'sb-commit-order-')));
    const stores = await Promise.all(dirs.map((dataDir) => openStore({ dataDir, databaseUrl: database.url })));
    const pairs = Array.from({ length: AGENTS * CONVERSATIONS }, (_, i) => ({ agentId: `agent-${i % AGENTS}`, counterpart: `+1415555${String(1000 + Math.floor(i / AGENTS))}` }));
    try {
      // Every agent's inbox row and conversation summaries exist, as they do for an agent past its first message.
      await Promise.all(pairs.map((p, i) => write(stores[0]!, message(p.agentId, p.counterpart, `first-${i}`))));
      const deadlocksBefore = await deadlocks(database.url);
      for (let round = 0; round < ROUNDS; round++) {
        // The two processes' writes at once, over the same agents and conversations in opposite orders.
        await Promise.all([
          ...pairs.map((p, i) => write(stores[0]!, message(p.agentId, p.counterpart, `a-${round}-${i}`))),
          ...[...pairs].reverse().map((p, i) => write(stores[1]!, message(p.agentId, p.counterpart, `b-${round}-${i}`))),
        ]);
      }
      const stored = await stores[0]!.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM inbox_entries');
      assert.equal(Number(stored!.n), pairs.length * (1 + 2 * ROUNDS), 'every write is in, with its inbox entry');
      await Promise.all(stores.map((s) => s.close()));
      stores.length = 0;
      assert.equal((await deadlocks(database.url)) - deadlocksBefore, 0, 'deadlocks between the two processes\' commits');
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await database.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The database's deadlocks so far (its backends' statistics, which a closed connection has reported). */
async function deadlocks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ deadlocks: string }>('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0]!.deadlocks);
  } finally {
    await client.end();
  }
}
