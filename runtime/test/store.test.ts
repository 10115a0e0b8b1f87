import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS, migrate, openSqlite, openStore, schemaVersion, type Migration } from '../src/internal.js';
import { insertShape } from '../src/store/sqlite/insert-coalescer.js';
import { updateShape } from '../src/store/sqlite/update-coalescer.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'sb-store-'));

describe('store and migrations', () => {
  it('migrates an empty database, and re-running is a no-op', async () => {
    const db = await openSqlite({ filename: join(tempDir(), 'a.db') });
    try {
      assert.deepEqual(await migrate(db, MIGRATIONS), MIGRATIONS.map((m) => m.version));
      assert.equal(await schemaVersion(db), MIGRATIONS.at(-1)!.version);
      assert.deepEqual(await migrate(db, MIGRATIONS), []);
      const tables = (await db.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")).map((t) => t.name);
      for (const t of ['agents', 'agent_channels', 'pool_entries', 'tokens', 'messages', 'dead_letters', 'usage_records', 'calls', 'settings']) {
        assert.ok(tables.includes(t), `missing table ${t}`);
      }
    } finally {
      await db.close();
    }
  });

  it('migration 17 ends what was unsettled before it unknown, quietly; what was final stays', async () => {
    const db = await openSqlite({ filename: join(tempDir(), 'r.db') });
    try {
      await migrate(db, MIGRATIONS.filter((m) => m.version < 17));
      const message = (id: string, externalId: string | null, status: string) =>
        db.execute(
          `INSERT INTO messages (id, agent_id, channel, direction, from_address, to_address, body, media_urls, external_id, status, segments, delivery, created_at, updated_at)
           VALUES (?, 'old-1', 'line', 'outbound', 'Ubot', 'Uuser', 'hi', '[]', ?, ?, 1, 'done', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
          [id, externalId, status],
        );
      await message('msg-sent', 'L1', 'sent');
      await message('msg-delivered', 'L2', 'delivered');
      await message('msg-unsent', null, 'queued');
      await db.execute(
        `INSERT INTO calls (call_sid, session_id, agent_id, direction, mode, from_address, to_address, status, duration_seconds, created_at, updated_at)
         VALUES ('CA1', 'ses-1', 'old-1', 'outbound', 'relay', '+1', '+2', 'ringing', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      );
      await migrate(db, MIGRATIONS);
      const statuses = await db.query<{ id: string; status: string; error: string | null }>('SELECT id, status, error FROM messages ORDER BY id');
      assert.deepEqual(statuses, [
        { id: 'msg-delivered', status: 'delivered', error: null },
        { id: 'msg-sent', status: 'unknown', error: 'sent before Switchboard asked providers for final statuses' },
        { id: 'msg-unsent', status: 'queued', error: null },
      ]);
      assert.deepEqual(await db.query('SELECT status FROM calls'), [{ status: 'unknown' }]);
      assert.deepEqual(await db.query('SELECT COUNT(*) AS n FROM inbox_entries'), [{ n: 0 }], 'quietly: no inbox entries');
    } finally {
      await db.close();
    }
  });

  it('a failing migration leaves nothing behind and is not recorded', async () => {
    const db = await openSqlite({ filename: join(tempDir(), 'b.db') });
    try {
      await migrate(db, MIGRATIONS);
      const broken: Migration = { version: 999, name: 'broken', statements: ['CREATE TABLE half_done (x INTEGER)', 'THIS IS NOT SQL'] };
      await assert.rejects(migrate(db, [...MIGRATIONS, broken]));
      assert.equal(await schemaVersion(db), MIGRATIONS.at(-1)!.version);
      assert.equal((await db.query("SELECT name FROM sqlite_master WHERE name = 'half_done'")).length, 0);
    } finally {
      await db.close();
    }
  });

  it('uses WAL and keeps data across reopen', async () => {
    const dir = tempDir();
    const store = await openStore({ dataDir: dir });
    await store.settings.set('markup', '12.5');
    const mode = await store.db.query<{ journal_mode: string }>('PRAGMA journal_mode');
    assert.equal(mode[0]!.journal_mode, 'wal');
    await store.close();
    const again = await openStore({ dataDir: dir });
    assert.equal(await again.settings.get('markup'), '12.5');
    await again.close();
  });

  it('rolls a transaction back when its work throws, and serialises concurrent transactions', async () => {
    const store = await openStore({ dataDir: tempDir() });
    try {
      await assert.rejects(
        store.db.transaction(async (tx) => {
          await tx.execute("INSERT INTO settings (key, value, updated_at) VALUES ('x', '1', 'now')");
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await store.settings.get('x'), undefined);
      await store.settings.set('counter', '0');
      await Promise.all(
        Array.from({ length: 25 }, () =>
          store.db.transaction(async (tx) => {
            const row = await tx.get<{ value: string }>("SELECT value FROM settings WHERE key = 'counter'");
            await new Promise((r) => setImmediate(r));
            await tx.execute("UPDATE settings SET value = ? WHERE key = 'counter'", [String(Number(row!.value) + 1)]);
          }),
        ),
      );
      assert.equal(await store.settings.get('counter'), '25');
    } finally {
      await store.close();
    }
  });
});

describe('group commit', () => {
  const withTable = async (work: (db: Awaited<ReturnType<typeof openSqlite>>) => Promise<void>) => {
    const db = await openSqlite({ filename: join(tempDir(), 'g.db') });
    try {
      await db.execute('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
      await work(db);
    } finally {
      await db.close();
    }
  };
  const insert = 'INSERT INTO t (id, n) VALUES (?, ?)';
  const count = async (db: Awaited<ReturnType<typeof openSqlite>>) => (await db.get<{ c: number }>('SELECT count(*) AS c FROM t'))!.c;

  it('commits concurrent inserts together, each with its own result, and more rows than one statement can carry', async () => {
    await withTable(async (db) => {
      // 20,000 rows × 2 parameters is more than one SQLite statement takes: the rows are split.
      const results = await Promise.all(Array.from({ length: 20_000 }, (_, i) => db.execute(insert, [`r${i}`, i])));
      assert.ok(results.every((r) => r.changes === 1));
      assert.equal(await count(db), 20_000);
      assert.equal((await db.get<{ n: number }>("SELECT n FROM t WHERE id = 'r19999'"))!.n, 19_999);
    });
  });

  it('a bad row in a coalesced batch fails alone', async () => {
    await withTable(async (db) => {
      await db.execute(insert, ['taken', 0]);
      const settled = await Promise.allSettled([
        db.execute(insert, ['a', 1]),
        db.execute(insert, ['taken', 2]),
        db.execute(insert, ['b', null]),
        db.execute(insert, ['c', 3]),
      ]);
      assert.deepEqual(
        settled.map((s) => s.status),
        ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
      );
      assert.deepEqual((await db.query<{ id: string }>('SELECT id FROM t ORDER BY id')).map((r) => r.id), ['a', 'c', 'taken']);
    });
  });

  it('an atomic group that fails is undone whole, alone, and the rest of the batch commits', async () => {
    await withTable(async (db) => {
      await db.execute(insert, ['taken', 0]);
      const settled = await Promise.allSettled([
        db.execute(insert, ['first', 1]),
        db.executeAll([
          { sql: insert, params: ['g1', 1] },
          { sql: 'UPDATE t SET n = n + 1 WHERE id = ?', params: ['g1'] },
        ]),
        db.executeAll([
          { sql: insert, params: ['g2', 2] },
          { sql: insert, params: ['taken', 2] },
        ]),
        db.execute('UPDATE t SET n = 10 WHERE id = ?', ['taken']),
      ]);
      assert.deepEqual(
        settled.map((s) => s.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(await db.query('SELECT id, n FROM t ORDER BY id'), [
        { id: 'first', n: 1 },
        { id: 'g1', n: 2 },
        { id: 'taken', n: 10 },
      ]);
    });
  });

  it('atomic groups of the same INSERTs share multi-row statements: conditional rows report per group, a bad group fails alone', async () => {
    await withTable(async (db) => {
      await db.execute('CREATE TABLE blocked (n INTEGER PRIMARY KEY)');
      await db.execute('CREATE TABLE u (id TEXT PRIMARY KEY, t_id TEXT NOT NULL)');
      await db.execute('INSERT INTO blocked (n) VALUES (?)', [3]);
      await db.execute(insert, ['taken', 0]);
      // A row of t unless its n is blocked, and a row of u only when that row of t went in: a send's two writes.
      const unlessBlocked = 'INSERT INTO t (id, n) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM blocked WHERE n = ?)';
      const ifStored = 'INSERT INTO u (id, t_id) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM t WHERE id = ?)';
      const group = (id: string, n: number) =>
        db.executeAll([
          { sql: unlessBlocked, params: [id, n, n] },
          { sql: ifStored, params: [`u-${id}`, id, id] },
        ]);
      const settled = await Promise.allSettled([...Array.from({ length: 40 }, (_, i) => group(`k${i}`, i)), group('taken', 99)]);
      const changes = settled.map((r) => (r.status === 'fulfilled' ? r.value.map((x) => x.changes) : 'rejected'));
      assert.deepEqual(changes, [...Array.from({ length: 40 }, (_, i) => (i === 3 ? [0, 0] : [1, 1])), 'rejected']);
      assert.equal(await count(db), 40, 'taken, and 39 new rows');
      assert.equal((await db.get<{ c: number }>('SELECT count(*) AS c FROM u'))!.c, 39);
      assert.equal((await db.get<{ c: number }>("SELECT count(*) AS c FROM u WHERE t_id = 'taken'"))!.c, 0, 'the failed group left nothing');
    });
  });

  it('same-shaped UPDATEs by key share one statement and report per write; the same key twice runs in order', async () => {
    await withTable(async (db) => {
      await db.execute('CREATE TABLE u (id TEXT PRIMARY KEY, t_id TEXT NOT NULL)');
      await Promise.all(Array.from({ length: 20 }, (_, i) => db.execute(insert, [`k${i}`, i])));
      const bump = "UPDATE t SET n = n + ? WHERE id = ? AND 'x' = 'x'";
      const results = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => db.execute(bump, [100, `k${i}`])),
        db.execute(bump, [1, 'nobody']),
        db.execute(bump, [1000, 'k0']),
      ]);
      assert.deepEqual(results.map((r) => r.changes), [...Array(20).fill(1), 0, 1]);
      assert.deepEqual((await db.query<{ n: number }>('SELECT n FROM t ORDER BY n')).map((r) => r.n), [
        ...Array.from({ length: 19 }, (_, i) => i + 101),
        1100,
      ].sort((a, b) => a - b));
      // A SET that changes a key is left alone: RETURNING names a row by its new key, which another write may hold.
      const rename = 'UPDATE t SET id = ? WHERE id = ?';
      const [moved, chained] = await Promise.all([db.execute(rename, ['q', 'k16']), db.execute(rename, ['r', 'q'])]);
      assert.equal(moved.changes, 1);
      assert.equal(chained.changes, (await db.get("SELECT id FROM t WHERE id = 'r'")) ? 1 : 0);
      await db.execute("UPDATE t SET id = 'k16' WHERE id IN ('q', 'r')");
      // Groups of the same UPDATEs (a send's result and its usage) share statements too, and stay atomic.
      await Promise.all(Array.from({ length: 10 }, (_, i) => db.execute('INSERT INTO u (id, t_id) VALUES (?, ?)', [`u${i}`, `k${i}`])));
      const settle = (i: number, tId: string) =>
        db.executeAll([
          { sql: 'UPDATE t SET n = ? WHERE id = ?', params: [-i, `k${i}`] },
          { sql: 'UPDATE u SET t_id = ? WHERE id = ?', params: [tId, `u${i}`] },
        ]);
      const settled = await Promise.allSettled([...Array.from({ length: 9 }, (_, i) => settle(i, `k${i}!`)), settle(9, null as unknown as string)]);
      assert.deepEqual(settled.map((r) => r.status), [...Array(9).fill('fulfilled'), 'rejected']);
      assert.equal((await db.get<{ n: number }>("SELECT n FROM t WHERE id = 'k9'"))!.n, 109, 'the failed group left nothing');
      assert.equal((await db.get<{ n: number }>("SELECT n FROM t WHERE id = 'k8'"))!.n, -8);
      assert.equal((await db.get<{ t_id: string }>("SELECT t_id FROM u WHERE id = 'u8'"))!.t_id, 'k8!');
    });
  });

  it("a transaction's statements run in the order issued, awaited or not", async () => {
    await withTable(async (db) => {
      await db.transaction(async (tx) => {
        const writes = [tx.execute(insert, ['o', 0])];
        for (let i = 1; i <= 50; i++) writes.push(tx.execute('UPDATE t SET n = n * 2 + ? WHERE id = ?', [i % 2, 'o']));
        await Promise.all(writes);
      });
      // Any other order gives a different number.
      let expected = 0;
      for (let i = 1; i <= 50; i++) expected = expected * 2 + (i % 2);
      assert.equal((await db.get<{ n: number }>("SELECT n FROM t WHERE id = 'o'"))!.n, expected);
    });
  });

  it('runs more distinct statements than it keeps prepared, concurrently, and closes cleanly', async () => {
    const db = await openSqlite({ filename: join(tempDir(), 'c.db') });
    await db.execute('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    // 300 distinct statements (more than the 256 kept), each run 3 times at once.
    await Promise.all(Array.from({ length: 900 }, (_, i) => db.execute(`INSERT INTO t (id, n) SELECT ?, ${i % 300} + 0`, [`k${i}`])));
    const sum = await db.transaction(async (tx) => {
      let total = 0;
      for (let i = 0; i < 300; i++) total += (await tx.get<{ v: number }>(`SELECT ${i} AS v`))!.v;
      return total;
    });
    assert.equal(sum, (299 * 300) / 2);
    assert.equal((await db.get<{ c: number }>('SELECT count(*) AS c FROM t'))!.c, 900);
    // Closing fails while any prepared statement is left unfinalized.
    await db.close();
  });

  it('reads on kept statements see every later commit, and closing waits for reads still running', async () => {
    const db = await openSqlite({ filename: join(tempDir(), 'r.db') });
    await db.execute('CREATE TABLE t (id TEXT PRIMARY KEY)');
    const count = async () => (await db.get<{ c: number }>('SELECT count(*) AS c FROM t'))!.c;
    for (let i = 1; i <= 3; i++) {
      await db.execute('INSERT INTO t (id) VALUES (?)', [`k${i}`]);
      // The same SQL each time, so the same kept statement: it must not hold an old snapshot.
      assert.equal(await count(), i);
    }
    // Reads of one SQL text at once take separate statements; more than are kept, left running at close.
    const reads = Array.from({ length: 20 }, () => count());
    await db.close();
    assert.deepEqual(await Promise.all(reads), Array.from({ length: 20 }, () => 3));
  });

  it('a read or write that arrives while the store closes is refused, and the close still succeeds', async () => {
    const db = await openSqlite({ filename: join(tempDir(), 'late.db') });
    await db.execute('CREATE TABLE t (id TEXT PRIMARY KEY)');
    const write = db.execute('INSERT INTO t (id) VALUES (?)', ['before']);
    const reading = Array.from({ length: 10 }, () => db.get('SELECT count(*) AS c FROM t'));
    let closed = false;
    const closing = db.close().finally(() => (closed = true));
    // What a late status callback or a media socket closing with the server does: reads and writes
    // arriving all through the close, each on its own turn of the event loop.
    const late: Promise<string>[] = [];
    while (!closed) {
      late.push(...[db.get('SELECT count(*) AS c FROM t'), db.execute('INSERT INTO t (id) VALUES (?)', [`late${late.length}`])].map((p) => p.then(() => 'answered', (err: unknown) => String(err))));
      await new Promise((r) => setImmediate(r));
    }
    await closing; // SQLITE_BUSY here if a statement was prepared during the close and left unfinalized.
    assert.equal((await write).changes, 1, 'a write queued before the close is committed');
    assert.equal((await Promise.all(reading)).length, 10, 'reads under way when the close began finish');
    const outcomes = await Promise.all(late);
    assert.ok(outcomes.length > 0);
    for (const outcome of outcomes) assert.match(outcome, /The store is closed/);
  });

  it('conflict-tolerant inserts report per row whether they inserted', async () => {
    await withTable(async (db) => {
      const tolerant = `${insert} ON CONFLICT (id) DO NOTHING`;
      await db.execute(tolerant, ['x', 0]);
      const results = await Promise.all([
        db.execute(tolerant, ['x', 1]),
        db.execute(tolerant, ['y', 2]),
        db.execute(tolerant, ['y', 3]),
        db.execute(tolerant, ['z', 4]),
      ]);
      assert.deepEqual(results.map((r) => r.changes), [0, 1, 0, 1]);
      assert.deepEqual(await db.query('SELECT id, n FROM t ORDER BY id'), [
        { id: 'x', n: 0 },
        { id: 'y', n: 2 },
        { id: 'z', n: 4 },
      ]);
    });
  });
  it('conflict-tolerant inserts that conflict on another unique column, or fail, still report per row', async () => {
    const db = await openSqlite({ filename: join(tempDir(), 'u.db') });
    try {
      await db.execute('CREATE TABLE m (id TEXT PRIMARY KEY, ext TEXT NOT NULL UNIQUE, n INTEGER NOT NULL)');
      const tolerant = 'INSERT INTO m (id, ext, n) VALUES (?, ?, ?) ON CONFLICT (ext) DO NOTHING';
      await db.execute(tolerant, ['m0', 'seen', 0]);
      // Distinct ids: one combined statement, and its RETURNING list names the rows that went in.
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => db.execute(tolerant, [`m${i + 1}`, i % 10 === 0 ? 'seen' : i === 21 ? 'e19' : `e${i}`, i])),
      );
      const expected = Array.from({ length: 40 }, (_, i) => (i % 10 === 0 || i === 21 ? 0 : 1));
      assert.deepEqual(results.map((r) => r.changes), expected);
      assert.equal((await db.get<{ c: number }>('SELECT count(*) AS c FROM m'))!.c, 1 + expected.filter((c) => c === 1).length);
      // A bad row fails alone; the others of its batch go in.
      const settled = await Promise.allSettled([db.execute(tolerant, ['b1', 'f1', 1]), db.execute(tolerant, ['b2', 'f2', null]), db.execute(tolerant, ['b3', 'f3', 3])]);
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
      assert.deepEqual((await db.query<{ id: string }>("SELECT id FROM m WHERE id LIKE 'b%' ORDER BY id")).map((r) => r.id), ['b1', 'b3']);
      // A first column that rewrites its value ('07' is stored as 7) cannot name the rows it
      // returned: the batch is replayed one write at a time and still reports per row.
      await db.execute('CREATE TABLE k (n INTEGER PRIMARY KEY, v TEXT NOT NULL)');
      const numbered = 'INSERT INTO k (n, v) VALUES (?, ?) ON CONFLICT DO NOTHING';
      await db.execute(numbered, ['03', 'old']);
      const replayed = await Promise.all(['01', '02', '03', '04'].map((n) => db.execute(numbered, [n, 'new'])));
      assert.deepEqual(replayed.map((r) => r.changes), [1, 1, 0, 1]);
      assert.deepEqual(await db.query('SELECT n, v FROM k ORDER BY n'), [
        { n: 1, v: 'new' },
        { n: 2, v: 'new' },
        { n: 3, v: 'old' },
        { n: 4, v: 'new' },
      ]);
    } finally {
      await db.close();
    }
  });
});

describe('repositories', () => {
  it('keeps a call log: insert, status callbacks with duration and cost, list', async () => {
    const store = await openStore({ dataDir: tempDir() });
    try {
      const now = new Date().toISOString();
      await store.calls.insert({
        callSid: 'CA' + '1'.repeat(32),
        sessionId: 'ses_1',
        agentId: 'a',
        direction: 'outbound',
        mode: 'relay',
        from: '+12025550100',
        to: '+14155550123',
        status: 'queued',
        durationSeconds: 0,
        cost: null,
        createdAt: now,
        updatedAt: now,
      });
      assert.equal(await store.calls.updateStatus('CA' + '1'.repeat(32), 'in-progress', null, null), true);
      assert.equal(await store.calls.updateStatus('CA' + '1'.repeat(32), 'completed', 42, 0.0185), true);
      assert.equal(await store.calls.updateStatus('CA' + '9'.repeat(32), 'completed', 1, null), false);
      const [call] = await store.calls.listForAgent('a');
      assert.deepEqual([call!.status, call!.durationSeconds, call!.cost], ['completed', 42, 0.0185]);
    } finally {
      await store.close();
    }
  });

  it('deduplicates inbound messages by provider id and hands dead letters out once', async () => {
    const store = await openStore({ dataDir: tempDir() });
    try {
      const now = new Date().toISOString();
      const message = {
        id: 'msg_1', agentId: 'a', channel: 'sms' as const, direction: 'inbound' as const, from: '+1', to: '+2', subject: null, body: 'hi', html: null,
        mediaUrls: [], externalId: 'SMx', status: 'received' as const, segments: 1, cost: null, error: null, delivery: 'pending' as const, createdAt: now, updatedAt: now,
      };
      assert.equal(await store.messages.insertInbound(message), true);
      assert.equal(await store.messages.insertInbound({ ...message, id: 'msg_2' }), false);
      assert.equal((await store.messages.pendingDeliveries()).length, 1);
      await store.deadLetters.insert({ id: 'dl_1', agentId: 'a', channel: 'sms', direction: 'inbound', reason: 'agent_offline', from: '+1', to: '+2', body: 'hi', mediaUrls: [], externalId: 'SMx', attempts: 0, createdAt: now });
      const [first, second] = await Promise.all([
        store.db.transaction((tx) => store.deadLetters.take(tx, 'a', undefined, 10)),
        store.db.transaction((tx) => store.deadLetters.take(tx, 'a', undefined, 10)),
      ]);
      assert.equal(first!.length + second!.length, 1, 'a dead letter was handed out twice');
      assert.equal(await store.deadLetters.countPending('a'), 0);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite group commit: the writes of a send and its receipts stay coalescible', () => {
  it("a send's INSERT with its do-not-contact and opt-out conditions, and a receipt's UPDATE that never goes back", async () => {
    const store = await openStore({ dataDir: tempDir() });
    try {
      const now = new Date().toISOString();
      const message = { id: 'msg_c1', agentId: 'c-1', channel: 'sms' as const, direction: 'outbound' as const, from: '+12025550100', to: '+14155550123', subject: null, body: 'hi', html: null, mediaUrls: [], externalId: null, status: 'queued' as const, segments: 1, cost: null, error: null, delivery: 'done' as const, createdAt: now, updatedAt: now };
      const insert = store.messages.insertOutboundStatement(message, [store.doNotContact.absentCondition(message.to, 'c-1', 'sms'), store.optOuts.absentCondition('sms', message.from, message.to)]);
      assert.notEqual(insertShape(insert.sql), null, 'the INSERT is one arm of a multi-row statement');
      for (const status of ['sent', 'delivered', 'read'] as const) {
        assert.notEqual(updateShape(store.messages.applyStatusStatement('c-1', 'SM1', status, null, null).sql), null, `the ${status} UPDATE joins a combined one`);
      }
    } finally {
      await store.close();
    }
  });

  it('a combined UPDATE keeps a condition with no placeholder for every write', async () => {
    const db = await openSqlite({ filename: join(tempDir(), 'u.db') });
    try {
      await db.execute('CREATE TABLE m (id TEXT PRIMARY KEY, status TEXT NOT NULL)');
      for (const [id, status] of [['a', 'sent'], ['b', 'delivered'], ['c', 'queued']] as const) await db.execute('INSERT INTO m (id, status) VALUES (?, ?)', [id, status]);
      const update = "UPDATE m SET status = ? WHERE id = ? AND status NOT IN ('delivered', 'read')";
      assert.notEqual(updateShape(update), null);
      const results = await Promise.all(['a', 'b', 'c'].map((id) => db.execute(update, ['sent', id])));
      assert.deepEqual(results.map((r) => r.changes), [1, 0, 1]);
      assert.deepEqual((await db.query<{ status: string }>('SELECT status FROM m ORDER BY id')).map((r) => r.status), ['sent', 'delivered', 'sent']);
    } finally {
      await db.close();
    }
  });
});
