import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openStore, type Store } from '../src/internal.js';
import { receivedEntry, statusEntry } from '../src/inbox/entries.js';
import type { MessageRecord } from '../src/store/repositories/messages.js';
import { multiRowOf } from '../src/store/postgres/multi-row.js';
import { createTestDatabase, eventually } from '../src/testing/index.js';

/**
 * PostgreSQL's group commit runs the same statement of many writes as one multi-row statement
 * INSERT (store/postgres/multi-row.ts). Each write must still get its own `changes`, a refused row must
 * refuse only its own write, and a write's statements must keep their order.
 */
const WRITES = 24;

function outbound(n: number, to: string): MessageRecord {
  const at = new Date().toISOString();
  return {
    id: `msg-multi-${n}`, agentId: `agent-${n % 3}`, channel: 'sms', direction: 'outbound', from: '+12025550101', to, subject: null, body: `m${n}`,
    html: null, mediaUrls: [], externalId: null, status: 'queued', segments: 1, cost: null, error: null, delivery: 'done', createdAt: at, updatedAt: at,
  };
}

describe('PostgreSQL: multi-row statements in a group commit', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataDir: string;
  let store: Store;
  const seen: string[] = [];
  const original = pg.Client.prototype.query;

  before(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'sb-multi-row-'));
    store = await openStore({ dataDir, databaseUrl: database.url });
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      seen.push(typeof config === 'string' ? config : (config?.text ?? ''));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    // The column types are read in the background at the first shared commit; until then rows go one by one.
    let warm = 0;
    await eventually(async () => {
      seen.length = 0;
      const pair = Array.from({ length: 6 }, () => outbound(10_000 + warm++, '+14155550000'));
      await Promise.all(pair.map((m) => store.db.executeAll([store.messages.insertOutboundStatement(m, [store.optOuts.absentCondition('sms', m.from, m.to)])])));
      return seen.some((text) => text.includes('UNION ALL'));
    });
  });

  after(async () => {
    pg.Client.prototype.query = original;
    await store?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('store conditional inserts and their inbox entries as one statement each, refusing only the rows whose condition fails', { timeout: 60_000 }, async () => {
    await store.optOuts.add('sms', '+12025550101', '+14155559999');
    seen.length = 0;
    const messages = Array.from({ length: WRITES }, (_, n) => outbound(n, n % 4 === 0 ? '+14155559999' : `+1415555${String(1000 + n)}`));
    const results = await Promise.all(
      messages.map((m) =>
        store.db.executeAll([
          store.messages.insertOutboundStatement(m, [store.optOuts.absentCondition('sms', m.from, m.to)]),
          store.inbox.appendStatement(statusEntry(m, { status: 'queued' })),
        ]),
      ),
    );
    assert.deepEqual(
      results.map((r) => r[0]!.changes),
      messages.map((m) => (m.to === '+14155559999' ? 0 : 1)),
      'each write is told whether its own row went in',
    );
    assert.ok(seen.some((text) => text.includes('UNION ALL')), 'the inserts went as one statement');
    assert.ok(seen.filter((text) => text.startsWith('INSERT INTO inbox_appends')).some((text) => text.split('), (').length > 2), 'the inbox entries went as one statement');
    const entries = await store.db.query<{ agent_id: string; seq: number; message_id: string }>('SELECT agent_id, seq, message_id FROM inbox_entries WHERE message_id = ANY(?::text[]) ORDER BY agent_id, seq', [
      `{${messages.map((m) => m.id).join(',')}}`,
    ]);
    assert.deepEqual(entries.map((e) => e.message_id).sort(), messages.filter((m) => m.to !== '+14155559999').map((m) => m.id).sort(), 'an entry for each stored message, none for a refused one');
    for (const agent of ['agent-0', 'agent-1', 'agent-2']) {
      const cursors = entries.filter((e) => e.agent_id === agent).map((e) => Number(e.seq));
      assert.deepEqual(cursors, [...new Set(cursors)].sort((a, b) => a - b), `${agent}'s cursors increase strictly`);
    }
  });

  it('apply updates picked by key one by one in the same commit, each write told the rows it changed', { timeout: 60_000 }, async () => {
    const messages = Array.from({ length: 8 }, (_, n) => ({ ...outbound(100 + n, `+1415556${String(1000 + n)}`), externalId: `SMX${n}` }));
    await Promise.all(messages.map((m) => store.db.executeAll([store.messages.insertOutboundStatement(m, [])])));
    seen.length = 0;
    // Half of them delivered, the others a receipt for an id no message has.
    const results = await Promise.all(messages.map((m, n) => store.db.executeAll([store.messages.applyStatusStatement(m.agentId, n % 2 === 0 ? m.externalId! : `SM-none-${n}`, 'delivered', 0.0079, null)])));
    assert.deepEqual(results.map((r) => r[0]!.changes), messages.map((_, n) => (n % 2 === 0 ? 1 : 0)));
    assert.ok(!seen.some((text) => text.startsWith('WITH v ')), 'no UPDATE joined to a VALUES list (its plan could keep a sequential scan)');
    const rows = await store.db.query<{ id: string; status: string; cost: number | null }>('SELECT id, status, cost FROM messages WHERE id = ANY(?::text[]) ORDER BY id', [`{${messages.map((m) => m.id).join(',')}}`]);
    assert.deepEqual(
      rows.map((r) => [r.status, r.cost === null ? null : Number(r.cost)]),
      messages.map((_, n) => (n % 2 === 0 ? ['delivered', 0.0079] : ['queued', null])),
    );
  });

  it('keeps one row at a time an INSERT whose condition reads its own table, which a later arm could not see an earlier one insert', () => {
    assert.equal(multiRowOf('INSERT INTO opt_outs (channel, agent_address) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM opt_outs WHERE channel = ?)'), null);
    assert.notEqual(multiRowOf('INSERT INTO usage_records (id, agent_id) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM messages WHERE id = ?)'), null);
  });

  it('fails only the write whose statement fails, and keeps the others', { timeout: 60_000 }, async () => {
    const taken = outbound(500, '+14155557000');
    await store.db.executeAll([store.messages.insertOutboundStatement(taken, [])]);
    const messages = Array.from({ length: 8 }, (_, n) => outbound(7000 + n, `+1415557${String(1000 + n)}`));
    const settled = await Promise.allSettled(
      [...messages, taken].map((m) => store.db.executeAll([store.messages.insertOutboundStatement(m, []), store.inbox.appendStatement(receivedEntry(m))])),
    );
    assert.deepEqual(settled.map((s) => s.status), [...messages.map(() => 'fulfilled'), 'rejected'], 'the duplicate id fails alone');
    const stored = await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE id LIKE 'msg-multi-700_'");
    assert.equal(Number(stored!.n), messages.length);
  });
});
