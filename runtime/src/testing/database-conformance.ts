import { conversationIdOf } from '../protocol/conversations.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { hasErrorCode } from '@switchboard/sdk';
import { TokenService } from '../auth/token-service.js';
import { Provisioner } from '../provisioning/provisioner.js';
import { SecretBox, hashToken, newToken } from '../secrets.js';
import type { Database } from '../store/database.js';
import { migrate, schemaVersion } from '../store/migrate.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import { SUMMARIES_FROM_ROWS } from '../store/migrations/019-conversation-summaries.js';
import { receivedEntry, statusEntry } from '../inbox/entries.js';
import type { DeadLetter } from '../store/repositories/dead-letters.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import { Store } from '../store/store.js';

/** A fresh, empty database that the suite can open several connections to, as several nodes would. */
export interface DatabaseUnderTest {
  /** Opens one more connection (a `Database`) to the same database. */
  connect(): Promise<Database>;
  /** Removes the database; every connection the suite opened is closed by then. */
  dispose(): Promise<void>;
}

/**
 * Runs the cases every `Database` implementation must pass, through the repositories the runtime
 * uses. `create` gives a new empty database for each case. The concurrency cases open two or more
 * connections, as two nodes of a cluster would, and race them.
 */
export function describeDatabaseConformance(name: string, create: () => Promise<DatabaseUnderTest>): void {
  /** Runs `work` with `n` migrated connections to a fresh database, and cleans up whatever happens. */
  async function withNodes(n: number, work: (stores: Store[]) => Promise<void>, migrated = true): Promise<void> {
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
  }

  describe(`Database conformance: ${name}`, () => {
    it('migrations started by several nodes at once run once, under the lock', async () => {
      await withNodes(
        4,
        async (stores) => {
          const applied = await Promise.all(stores.map((s) => migrate(s.db, MIGRATIONS)));
          assert.deepEqual(applied.flat().sort((a, b) => a - b), MIGRATIONS.map((m) => m.version), 'every migration applied exactly once');
          for (const s of stores) assert.equal(await schemaVersion(s.db), MIGRATIONS.at(-1)!.version);
          assert.deepEqual(await migrate(stores[0]!.db, MIGRATIONS), []);
          // A later release's migration, started by all nodes again: one applies it.
          const next = { version: 1000, name: 'conformance', statements: ['CREATE TABLE conformance_probe (id TEXT PRIMARY KEY)'] };
          const again = await Promise.all(stores.map((s) => migrate(s.db, [...MIGRATIONS, next])));
          assert.deepEqual(again.flat(), [1000]);
        },
        false,
      );
    });

    it('a failing migration leaves nothing behind and is not recorded', async () => {
      await withNodes(1, async ([store]) => {
        const broken = { version: 999, name: 'broken', statements: ['CREATE TABLE half_done (x INTEGER)', 'THIS IS NOT SQL'] };
        await assert.rejects(migrate(store!.db, [...MIGRATIONS, broken]));
        assert.equal(await schemaVersion(store!.db), MIGRATIONS.at(-1)!.version);
        await assert.rejects(store!.db.query('SELECT * FROM half_done'));
      });
    });

    it('transactions commit or roll back whole; an atomic group fails whole; `?` inside a literal is text', async () => {
      await withNodes(1, async ([store]) => {
        const db = store!.db;
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.execute("INSERT INTO settings (key, value, updated_at) VALUES ('x', '1', 'now')");
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.equal(await store!.settings.get('x'), undefined);
        await assert.rejects(
          db.executeAll([
            { sql: "INSERT INTO settings (key, value, updated_at) VALUES ('g', '1', 'now')" },
            { sql: "INSERT INTO settings (key, value, updated_at) VALUES ('g', '2', 'now')" },
          ]),
        );
        assert.equal(await store!.settings.get('g'), undefined);
        const results = await db.executeAll([
          { sql: 'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)', params: ['h', '1', 'now'] },
          { sql: 'UPDATE settings SET value = ? WHERE key = ?', params: ['2', 'h'] },
          { sql: 'UPDATE settings SET value = ? WHERE key = ?', params: ['3', 'nobody'] },
        ]);
        assert.deepEqual(results.map((r) => r.changes), [1, 1, 0]);
        assert.equal(await store!.settings.get('h'), '2');
        assert.deepEqual(await db.get("SELECT '?' AS q, ? AS v", ['p']), { q: '?', v: 'p' });
        await db.ping();
      });
    });

    it('concurrent writes share commits: each resolves only once committed, with its own results', async () => {
      await withNodes(2, async ([a, b]) => {
        const insert = 'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)';
        const seen: string[] = [];
        await Promise.all(
          Array.from({ length: 60 }, async (_, i) => {
            const key = `gc-${i}`;
            const results =
              i % 3 === 0
                ? await a!.db.executeAll([
                    { sql: insert, params: [key, '1', 'now'] },
                    { sql: 'UPDATE settings SET value = ? WHERE key = ?', params: ['2', key] },
                    { sql: 'UPDATE settings SET value = ? WHERE key = ?', params: ['x', `${key}-nobody`] },
                  ])
                : [await a!.db.execute(insert, [key, '2', 'now'])];
            assert.deepEqual(results.map((r) => r.changes), i % 3 === 0 ? [1, 1, 0] : [1]);
            // Acknowledged means committed: another node reads it at once.
            assert.equal(await b!.settings.get(key), '2', `${key} resolved before another node could read it`);
            seen.push(key);
          }),
        );
        assert.equal(seen.length, 60);
      });
    });

    it('a failing write in a shared commit fails alone and whole; the writes beside it are committed', async () => {
      await withNodes(2, async ([a, b]) => {
        const insert = 'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)';
        await a!.db.execute(insert, ['taken', '0', 'now']);
        for (let round = 0; round < 5; round++) {
          const writes = Array.from({ length: 30 }, (_, i) => {
            const key = `r${round}-${i}`;
            if (i % 10 === 3) {
              // An atomic group whose second statement fails: its first must not stay.
              return a!.db.executeAll([{ sql: insert, params: [key, '1', 'now'] }, { sql: insert, params: ['taken', '1', 'now'] }]).then(
                () => ({ key, ok: true }),
                () => ({ key, ok: false }),
              );
            }
            if (i % 10 === 7) return a!.db.execute(insert, ['taken', '1', 'now']).then(() => ({ key: 'taken', ok: true }), () => ({ key: 'taken', ok: false }));
            return a!.db.execute(insert, [key, '1', 'now']).then(() => ({ key, ok: true }), () => ({ key, ok: false }));
          });
          const outcomes = await Promise.all(writes);
          for (const [i, outcome] of outcomes.entries()) {
            const failing = i % 10 === 3 || i % 10 === 7;
            assert.equal(outcome.ok, !failing, `write ${i} of round ${round}`);
            if (i % 10 === 3) assert.equal(await b!.settings.get(`r${round}-${i}`), undefined, 'half of a failed group was kept');
            if (!failing) assert.equal(await b!.settings.get(outcome.key), '1');
          }
        }
        assert.equal(await b!.settings.get('taken'), '0');
      });
    });

    it('stores and reads every aggregate through the repositories, counts and money as numbers', async () => {
      await withNodes(1, async ([store]) => {
        const s = store!;
        const now = new Date().toISOString();
        await s.pools.add('phone', ['+12025550101', '+12025550102']);
        assert.deepEqual(await s.pools.counts(), { phone: { total: 2, free: 2 }, whatsapp: { total: 0, free: 0 }, line: { total: 0, free: 0 }, email: { total: 0, free: 0 } });
        const agent = {
          agentId: 'crud-1', displayName: 'CRUD', status: 'active' as const, blockedChannels: [], callbackUrl: null, sealedSigningSecret: null,
          greeting: null, systemPrompt: null, voice: null, language: null, channels: [{ channel: 'sms' as const, address: '+12025550101', pool: 'phone' }], createdAt: now, updatedAt: now,
        };
        assert.equal(await s.db.transaction((tx) => s.agents.insert(tx, agent)), true);
        assert.equal(await s.db.transaction((tx) => s.agents.insert(tx, agent)), false, 'a taken agent id is reported, not thrown');
        assert.deepEqual((await s.agents.get('crud-1'))!.channels, agent.channels);
        assert.equal(await s.agents.setBlockedChannels('crud-1', ['sms']), true);
        assert.deepEqual((await s.agents.get('crud-1'))!.blockedChannels, ['sms']);
        assert.deepEqual(await s.agents.count(), { total: 1, active: 1 });
        assert.equal((await s.agents.list()).length, 1);

        await s.settings.set('markup', '10');
        await s.settings.set('markup', '12.5');
        assert.equal(await s.settings.get('markup'), '12.5');
        await s.limits.set('crud-1', { overrides: { actionsPerMinute: 3 }, markupPercent: 7.5 });
        assert.deepEqual(await s.limits.get('crud-1'), { overrides: { actionsPerMinute: 3 }, markupPercent: 7.5 });
        await s.optOuts.add('sms', '+12025550101', '+14155550100');
        await s.optOuts.add('sms', '+12025550101', '+14155550100');
        assert.equal(await s.optOuts.has('sms', '+12025550101', '+14155550100'), true);
        await s.optOuts.remove('sms', '+12025550101', '+14155550100');
        assert.equal(await s.optOuts.has('sms', '+12025550101', '+14155550100'), false);

        const message = inbound('crud-1', 'SM1', now);
        assert.equal(await s.messages.insertInbound(message), true);
        assert.equal(await s.messages.insertInbound({ ...message, id: `${message.id}-again` }), false, 'a provider retry is a duplicate');
        assert.deepEqual((await s.messages.pendingDeliveries()).map((m) => m.id), [message.id]);
        assert.deepEqual(await s.messages.pendingDeliveryWithCallback(message.id), { message, callbackUrl: null, sealedSigningSecret: null });
        await s.agents.setCallback('crud-1', 'https://agent.example/cb', 'sealed');
        assert.deepEqual(await s.messages.pendingDeliveryWithCallback(message.id), { message, callbackUrl: 'https://agent.example/cb', sealedSigningSecret: 'sealed' });
        await s.messages.markDelivered(message.id);
        assert.equal(await s.messages.pendingDeliveryWithCallback(message.id), undefined, 'a delivered message is not pending');
        assert.equal((await s.messages.pendingDeliveries()).length, 0);
        const outbound = { ...message, id: 'msg-out-1', direction: 'outbound' as const, externalId: null, status: 'queued' as const, delivery: 'done' as const };
        await s.messages.insert(outbound);
        await s.db.executeAll([s.messages.markSentStatement(outbound.id, { externalId: 'SM2', status: 'sent', cost: 0.0083, segments: 2 })]);
        await s.db.executeAll([s.messages.applyStatusStatement('crud-1', 'SM2', 'delivered', null, null)]);
        const sent = (await s.messages.findOutbound('crud-1', 'SM2'))!;
        assert.deepEqual([sent.status, sent.cost, sent.segments], ['delivered', 0.0083, 2]);
        assert.deepEqual(await s.messages.countByChannel('crud-1'), { sms: 2 });

        for (const [i, cost] of [0.0083, 0.0083, 0.0079].entries()) {
          await s.usage.insert({ id: `use-${i}`, agentId: 'crud-1', channel: 'sms', action: 'message', quantity: 1, providerCost: null, tariffCost: cost, externalId: null, createdAt: now });
        }
        await s.db.executeAll([s.usage.setProviderCostStatement('crud-1', 'SM9', 1)]);
        const totals = await s.usage.totalsSince('crud-1', { day: Date.now() - 60_000 });
        assert.equal(totals.day!.actions, 3);
        assert.equal(typeof totals.day!.actions, 'number');
        assert.equal(Math.round(totals.day!.spend * 10_000) / 10_000, 0.0245);
        // Several windows in one read: one that began after the records counts none of them.
        const windows = await s.usage.totalsSince('crud-1', { minute: Date.now() + 60_000, month: Date.now() - 3_600_000 });
        assert.deepEqual(windows.minute, { actions: 0, spend: 0 });
        assert.equal(windows.month!.actions, 3);
        assert.equal(Math.round(windows.month!.spend * 10_000) / 10_000, 0.0245);
        const [summary] = await s.usage.summarise(new Date(Date.now() - 60_000), 'crud-1');
        assert.deepEqual({ ...summary!, cost: Math.round(summary!.cost * 10_000) / 10_000 }, { agentId: 'crud-1', channel: 'sms', action: 'message', count: 3, quantity: 3, cost: 0.0245 });

        await s.calls.insert({
          callSid: 'CA1', sessionId: 'ses-1', agentId: 'crud-1', direction: 'outbound', mode: 'relay', from: '+12025550101', to: '+14155550100',
          status: 'queued', durationSeconds: 0, cost: null, createdAt: now, updatedAt: now,
        });
        assert.equal(await s.calls.updateStatus('CA1', 'completed', 42, 0.0185), true);
        assert.equal(await s.calls.updateStatus('CA-nobody', 'completed', 1, null), false);
        const call = (await s.calls.get('CA1'))!;
        assert.deepEqual([call.status, call.durationSeconds, call.cost], ['completed', 42, 0.0185]);
        assert.equal(await s.calls.countOutboundTo('crud-1', '+14155550100', new Date(Date.now() - 60_000).toISOString()), 1);
        assert.equal(await s.calls.countForAgent('crud-1'), 1);

        await s.tokens.insert({ id: 'tok-1', kind: 'client', agentId: 'crud-1', tokenHash: 'h1', sealedToken: null, createdAt: now });
        assert.equal((await s.tokens.findByHash('h1'))!.agentId, 'crud-1');
        const released = await s.db.transaction(async (tx) => {
          const entries = await s.pools.release(tx, 'crud-1');
          await s.limits.delete(tx, 'crud-1');
          assert.equal(await s.agents.delete(tx, 'crud-1'), true);
          return entries;
        });
        assert.deepEqual(released.map((e) => e.address), []);
        assert.equal(await s.agents.get('crud-1'), undefined);
        assert.equal(await s.tokens.findByHash('h1'), undefined, "an agent's tokens go with it");
      });
    });

    it('an outbound SMS and its usage are stored in one group unless the recipient opted out', async () => {
      await withNodes(1, async ([store]) => {
        const s = store!;
        const now = new Date().toISOString();
        const base = { ...inbound('opt-1', 'SM0', now), externalId: null, direction: 'outbound' as const, status: 'queued' as const, delivery: 'done' as const };
        const usage = { agentId: 'opt-1', channel: 'sms' as const, action: 'message', quantity: 1, providerCost: null, tariffCost: 0.0083, externalId: null, createdAt: now };
        const send = (id: string) =>
          s.db.executeAll([s.messages.insertUnlessOptedOutStatement({ ...base, id }), s.usage.insertForMessageStatement({ ...usage, id: `use-${id}` }, id)]);
        assert.deepEqual(await send('msg-a'), [{ changes: 1 }, { changes: 1 }]);
        await s.optOuts.add('sms', base.from, base.to);
        assert.deepEqual(await send('msg-b'), [{ changes: 0 }, { changes: 0 }]);
        assert.equal(await s.messages.get('msg-b'), undefined);
        assert.deepEqual((await s.usage.listForAgent('opt-1')).map((u) => u.id), ['use-msg-a']);
        await s.optOuts.remove('sms', base.from, base.to);
        assert.deepEqual(await send('msg-c'), [{ changes: 1 }, { changes: 1 }]);
      });
    });

    it("an inbound message and its dead letter in one group: the letter goes in only with the message, replays and concurrent copies included", async () => {
      await withNodes(1, async ([store]) => {
        const s = store!;
        const now = new Date().toISOString();
        const arrive = (externalId: string, copy: number) => {
          const message = { ...inbound('dl-1', externalId, now), id: `msg-${externalId}-${copy}` };
          const letterOf = { ...letter('dl-1', `dl-${externalId}-${copy}`, now, 'sms'), externalId };
          return s.db.executeAll([s.messages.insertInboundStatement(message), s.deadLetters.insertForStoredMessageStatement(letterOf, message.id)]);
        };
        assert.deepEqual(await arrive('SM1', 0), [{ changes: 1 }, { changes: 1 }]);
        assert.deepEqual(await arrive('SM1', 1), [{ changes: 0 }, { changes: 0 }], 'a provider retry stores neither');
        // Issued together, so that on SQLite they share a group commit (coalesced multi-row statements).
        const together = await Promise.all(['SM2', 'SM3', 'SM2', 'SM4', 'SM3'].map((sid, i) => arrive(sid, i)));
        assert.equal(together.filter((r) => r[0]!.changes === 1).length, 3);
        for (const [stored, lettered] of together) assert.equal(lettered!.changes, stored!.changes, 'a letter exactly when its message went in');
        assert.equal(await s.deadLetters.countPending('dl-1'), 4);
        assert.equal((await s.messages.pendingDeliveries()).length, 0, 'a message with its letter is not re-driven');
      });
    });

    it("a delivery receipt is one UPDATE of the message that also prices the message's usage record", async () => {
      await withNodes(1, async ([store]) => {
        const s = store!;
        const now = new Date().toISOString();
        const sent = { ...inbound('rcpt-1', 'SM7', now), id: 'msg-rcpt', direction: 'outbound' as const, status: 'sent' as const, delivery: 'done' as const };
        await s.messages.insert(sent);
        const usage = { agentId: 'rcpt-1', channel: 'sms' as const, action: 'message', quantity: 1, providerCost: null, tariffCost: 0.0083, createdAt: now };
        await s.usage.insert({ ...usage, id: 'use-rcpt', externalId: 'SM7' });
        await s.usage.insert({ ...usage, id: 'use-other', externalId: 'SM8' });
        const receipt = (cost: number | null) => s.messages.applyStatusStatement('rcpt-1', 'SM7', 'delivered', cost, null);
        assert.deepEqual(await s.db.executeAll([receipt(null)]), [{ changes: 1 }], 'the message row alone is counted');
        assert.equal((await s.usage.listForAgent('rcpt-1')).find((u) => u.id === 'use-rcpt')!.providerCost, null, 'no price, no change');
        assert.deepEqual(await s.db.executeAll([receipt(0.0079)]), [{ changes: 1 }]);
        const costs = Object.fromEntries((await s.usage.listForAgent('rcpt-1')).map((u) => [u.id, u.providerCost]));
        assert.deepEqual(costs, { 'use-rcpt': 0.0079, 'use-other': null });
        assert.equal((await s.messages.get('msg-rcpt'))!.cost, 0.0079);
        const unknown = s.messages.applyStatusStatement('rcpt-1', 'SM-nobody', 'delivered', 0.0079, null);
        assert.deepEqual(await s.db.executeAll([unknown]), [{ changes: 0 }]);
      });
    });

    it('reconciler: unsettled sends and calls oldest first, one claim of an ask among two nodes, a status applied only over the one read', async () => {
      await withNodes(2, async ([first, second]) => {
        const [a, b] = [first!, second!];
        const at = (ms: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + ms).toISOString();
        const outbound = (id: string, externalId: string | null, status: MessageRecord['status'], ms: number): MessageRecord => ({
          ...inbound('rec-1', id, at(ms)),
          id,
          externalId,
          direction: 'outbound',
          status,
          delivery: 'done',
        });
        for (const m of [outbound('msg-r2', 'SMR2', 'sent', 2), outbound('msg-r1', 'SMR1', 'queued', 1), outbound('msg-r3', 'SMR3', 'delivered', 3), outbound('msg-r4', null, 'queued', 4), outbound('msg-r5', 'SMR5', 'sent', 60_000)]) {
          await a.messages.insert(m);
        }
        const due = async (s: Store, cutMs: number, nowMs: number) => (await s.messages.dueForAsk(new Date(at(cutMs)), new Date(at(nowMs)))).map((m) => m.id);
        assert.deepEqual(await due(b, 10_000, 10_000), ['msg-r1', 'msg-r2'], 'sent (an external id), not final, never asked and older than the cut, oldest first');
        const claims = await Promise.all([a.messages.claimAsk('msg-r1', null, new Date(at(90_000))), b.messages.claimAsk('msg-r1', null, new Date(at(80_000)))]);
        assert.deepEqual(claims.filter(Boolean).length, 1, 'one of two nodes takes the ask');
        const nextAsk = (await a.messages.get('msg-r1'))!.nextAskAt!;
        assert.equal(await b.messages.claimAsk('msg-r1', null, new Date(at(95_000))), false, 'asked already');
        assert.deepEqual(await due(b, 10_000, 70_000), ['msg-r2'], 'not due again before its next ask');
        assert.deepEqual(await due(b, 10_000, 90_000), ['msg-r2', 'msg-r1'], 'never asked first, then the asks due');
        assert.equal(await b.messages.claimAsk('msg-r1', nextAsk, new Date(at(180_000))), true, 'the next ask, over the last');
        assert.equal(await a.messages.claimAsk('msg-r3', null, new Date(at(90_000))), false, 'a final status is not asked about');
        const over = (expected: MessageRecord['status']) => b.messages.applyStatusStatement('rec-1', 'SMR2', 'unknown', null, 'no answer', expected);
        assert.deepEqual(await b.db.executeAll([over('queued')]), [{ changes: 0 }], 'not over another status');
        assert.deepEqual(await b.db.executeAll([over('sent')]), [{ changes: 1 }]);
        assert.deepEqual([(await a.messages.get('msg-r2'))!.status, (await a.messages.get('msg-r2'))!.error], ['unknown', 'no answer']);
        assert.deepEqual(await due(a, 10_000, 200_000), ['msg-r1'], 'unknown is final');

        const call = (callSid: string, status: string, ms: number) =>
          a.calls.insert({ callSid, sessionId: `ses-${callSid}`, agentId: 'rec-1', direction: 'outbound', mode: 'relay', from: '+12025550101', to: '+14155550100', status, durationSeconds: 0, cost: null, createdAt: at(ms), updatedAt: at(ms) });
        await call('CAR1', 'ringing', 1);
        await call('CAR2', 'completed', 2);
        await call('CAR3', 'in-progress', 3);
        const dueCalls = async (s: Store, nowMs: number) => (await s.calls.dueForAsk(new Date(at(10_000)), new Date(at(nowMs)))).map((c) => c.callSid);
        assert.deepEqual(await dueCalls(b, 10_000), ['CAR1', 'CAR3'], 'calls not ended, oldest first');
        const callClaims = await Promise.all([a.calls.claimAsk('CAR1', null, new Date(at(90_000))), b.calls.claimAsk('CAR1', null, new Date(at(80_000)))]);
        assert.equal(callClaims.filter(Boolean).length, 1, 'one of two nodes takes the ask about a call');
        assert.deepEqual(await dueCalls(b, 10_000), ['CAR3'], 'not due again before its next ask');
        assert.equal(await a.calls.claimAsk('CAR2', null, new Date(at(90_000))), false, 'an ended call is not asked about');
        assert.deepEqual(await b.db.executeAll([b.calls.updateStatusStatement('CAR3', 'unknown', null, null, 'ringing')]), [{ changes: 0 }], 'not over another status');
        assert.deepEqual(await b.db.executeAll([b.calls.updateStatusStatement('CAR3', 'unknown', null, null, 'in-progress')]), [{ changes: 1 }]);
        assert.deepEqual(await dueCalls(a, 200_000), ['CAR1'], 'unknown is final');
      });
    });

    it('pool claims under concurrent provisioning on two nodes: no number twice, no false POOL_EXHAUSTED', async () => {
      await withNodes(2, async (stores) => {
        const numbers = Array.from({ length: 24 }, (_, i) => `+1202555${String(1000 + i).padStart(4, '0')}`);
        await stores[0]!.pools.add('phone', numbers);
        const box = new SecretBox(randomBytes(32));
        const provisioners = stores.map((s) => new Provisioner(s, new TokenService(s, box), box, 'example.com'));
        const provision = (i: number, country?: string) =>
          provisioners[i % provisioners.length]!.provision({ agentId: `race-${i}`, displayName: `Race ${i}`, channels: ['sms', 'voice'], tokenHash: hashToken(newToken('sb_live')), ...(country ? { country } : {}) });
        // Half pick any number, half ask for a country: both ways race for the same rows.
        const results = await Promise.all(Array.from({ length: numbers.length }, (_, i) => provision(i, i % 2 ? 'US' : undefined)));
        const addresses = results.map((r) => r.result.channels.sms!.address);
        assert.equal(new Set(addresses).size, numbers.length, 'a number was handed out twice');
        assert.deepEqual([...addresses].sort(), [...numbers].sort());
        for (const r of results) assert.equal(r.result.channels.voice!.address, r.result.channels.sms!.address);
        await assert.rejects(provision(100), (err: unknown) => hasErrorCode(err, 'POOL_EXHAUSTED'));
        assert.equal(await stores[0]!.agents.get('race-100'), undefined, 'an exhausted provisioning takes nothing');
        // Deprovisioning on one node frees numbers the other node can claim at once.
        await Promise.all([provisioners[0]!.deprovision('race-0'), provisioners[1]!.deprovision('race-1')]);
        const again = await Promise.all([provision(200), provision(201)]);
        assert.deepEqual(again.map((r) => r.result.channels.sms!.address).sort(), [addresses[0]!, addresses[1]!].sort());
        // The same agent id provisioned on both nodes at once: one wins, the other is a conflict.
        const twice = await Promise.allSettled([provisioners[0]!.provision({ agentId: 'dup', displayName: 'D', channels: [], tokenHash: hashToken(newToken('sb_live')) }), provisioners[1]!.provision({ agentId: 'dup', displayName: 'D', channels: [], tokenHash: hashToken(newToken('sb_live')) })]);
        assert.deepEqual(twice.map((t) => t.status).sort(), ['fulfilled', 'rejected']);
        assert.ok(hasErrorCode((twice.find((t) => t.status === 'rejected') as PromiseRejectedResult).reason, 'CONFLICT'));
      });
    });

    it('waiting messages taken by two consumers at once: each letter handed out once', async () => {
      await withNodes(2, async (stores) => {
        const now = Date.now();
        const letters = Array.from({ length: 60 }, (_, i) => letter('dl-agent', `dl-${String(i).padStart(3, '0')}`, new Date(now + i).toISOString(), i % 3 ? 'sms' : 'email'));
        await Promise.all(letters.map((l) => stores[0]!.deadLetters.insert(l)));
        assert.equal(await stores[1]!.deadLetters.countPending('dl-agent'), 60);
        const taken: string[][] = [[], []];
        await Promise.all(
          stores.map(async (s, i) => {
            for (;;) {
              const got = await s.db.transaction((tx) => s.deadLetters.take(tx, 'dl-agent', i === 0 ? undefined : 'sms', 7));
              if (got.length === 0) break;
              const ids = got.map((l) => l.id);
              assert.deepEqual(ids, [...ids].sort(), 'a take returns the oldest first');
              taken[i]!.push(...ids);
            }
          }),
        );
        const all = taken.flat();
        assert.equal(new Set(all).size, all.length, 'a dead letter was handed out twice');
        assert.deepEqual(all.sort(), letters.map((l) => l.id).sort());
        assert.equal(await stores[0]!.deadLetters.countPending(), 0);
      });
    });

    it('several nodes starting on one new database make one orchestrator and one team token', async () => {
      await withNodes(3, async (stores) => {
        const box = new SecretBox(randomBytes(32));
        const services = stores.map((s) => new TokenService(s, box));
        const started = await Promise.all(services.map((t) => t.init('')));
        const generated = started.flatMap((r) => (r.generatedOrchestratorToken ? [r.generatedOrchestratorToken] : []));
        assert.equal(generated.length, 1, 'one node generates (and prints) the orchestrator token');
        for (const t of services) assert.deepEqual(await t.authenticate(generated[0]!), { kind: 'orchestrator' });
        assert.equal((await stores[0]!.tokens.findByKind('orchestrator')).length, 1);
        assert.equal((await stores[0]!.tokens.findByKind('team')).length, 1);
        assert.equal(new Set(await Promise.all(services.map((t) => t.teamToken()))).size, 1);
      });
    });

    it('idempotency records: of concurrent records for one key on two nodes, exactly one wins and is replayed', async () => {
      await withNodes(2, async (stores) => {
        for (let round = 0; round < 10; round++) {
          const key = `key-${round}`;
          const outcomes = await Promise.all(
            Array.from({ length: 6 }, (_, i) => stores[i % 2]!.idempotency.record('agent:a', key, { requestHash: `h${i}`, status: 200, body: { n: i } })),
          );
          assert.equal(outcomes.filter(Boolean).length, 1, 'more or fewer than one record won');
          const winner = outcomes.indexOf(true);
          assert.deepEqual(await stores[(winner + 1) % 2]!.idempotency.find('agent:a', key), { requestHash: `h${winner}`, status: 200, body: { n: winner } });
        }
        assert.equal(await stores[0]!.idempotency.find('agent:b', 'key-0'), undefined, 'keys are per scope');
      });
    });

    it('inbox cursors: concurrent events of one agent on two nodes get distinct cursors 1..n, each only with its message', async () => {
      await withNodes(2, async (stores) => {
        const now = new Date().toISOString();
        const appendWith = (s: Store, message: MessageRecord) =>
          s.db.executeAll([s.messages.insertInboundStatement(message), s.inbox.appendStatement(receivedEntry(message))]);
        const messages = Array.from({ length: 40 }, (_, i) => inbound(i % 4 === 3 ? 'inbox-2' : 'inbox-1', `SMI${i}`, now));
        await Promise.all(messages.map((m, i) => appendWith(stores[i % 2]!, m)));
        const [first, second] = stores as [Store, Store];
        const entries = await first.inbox.read('inbox-1', 0, 500);
        assert.deepEqual(entries.map((e) => e.cursor), Array.from({ length: 30 }, (_, i) => i + 1), 'no cursor twice, none skipped');
        assert.deepEqual(new Set(entries.map((e) => e.messageId)), new Set(messages.filter((m) => m.agentId === 'inbox-1').map((m) => m.id)));
        assert.equal((await second.inbox.read('inbox-2', 0, 500)).length, 10, 'cursors are per agent');
        assert.deepEqual(await second.inbox.position('inbox-2'), { lastCursor: 10, ackedCursor: 0 });

        const [replay] = await appendWith(first, { ...messages[0]!, id: 'msg-replayed' });
        assert.equal(replay!.changes, 0);
        assert.equal((await first.inbox.position('inbox-1')).lastCursor, 30, 'a provider retry takes no cursor and leaves no entry');

        assert.equal(await first.inbox.acknowledge('inbox-1', 31), false, 'past the last cursor');
        assert.equal(await first.inbox.acknowledge('inbox-1', 12), true);
        assert.equal(await second.inbox.acknowledge('inbox-1', 5), true);
        assert.deepEqual(await first.inbox.position('inbox-1'), { lastCursor: 30, ackedCursor: 12 }, 'never back');
        assert.equal(await first.inbox.sweepAcknowledged(new Date(Date.now() - 60_000)), 0, 'younger than the retention');
        assert.equal(await first.inbox.sweepAcknowledged(new Date(Date.now() + 60_000)), 12, 'only acknowledged entries go');
        assert.deepEqual((await first.inbox.read('inbox-1', 0, 500)).map((e) => e.cursor)[0], 13);
        assert.equal((await first.inbox.read('inbox-2', 0, 500)).length, 10);
      });
    });

    it('conversations: older rows named by the backfill, links followed both ways, a timeline across messages and calls', async () => {
      await withNodes(2, async ([first, second]) => {
        const at = (s: number) => new Date(Date.parse('2026-05-01T00:00:00Z') + s * 1000).toISOString();
        const message = (id: string, from: string, createdAt: string) => ({
          id, agentId: 'conv-1', channel: 'sms' as const, direction: 'inbound' as const, from, to: '+15550000001', subject: null, body: id, html: null,
          mediaUrls: [], externalId: id, status: 'received' as const, segments: 1, cost: null, error: null, delivery: 'done' as const, createdAt, updatedAt: createdAt,
        });
        await first!.messages.insert(message('m1', '+15550000002', at(1)));
        await first!.messages.insert(message('m2', 'ada@example.com', at(2)));
        // A row stored before conversations existed.
        await first!.messages.insert(message('m0', '+15550000002', at(0)));
        await first!.db.execute("UPDATE messages SET conversation_id = NULL WHERE id = 'm0'");
        assert.equal(await second!.conversations.backfill(10), 1);
        assert.equal(await first!.conversations.backfill(10), 0, 'nothing left to name');
        const number = conversationIdOf('conv-1', '+15550000002');
        const email = conversationIdOf('conv-1', 'Ada@Example.com');
        assert.deepEqual((await second!.conversations.timeline('conv-1', [number], 10)).map((r) => r.id), ['m1', 'm0']);
        assert.equal(await first!.conversations.link('conv-1', '+15550000002', ['Ada@Example.com'], at(3)), number);
        assert.equal(await second!.conversations.resolve('conv-1', email), number);
        assert.deepEqual(new Set(await second!.conversations.members('conv-1', number)), new Set([number, email]));
        const all = await second!.conversations.timeline('conv-1', [number, email], 10);
        assert.deepEqual(all.map((r) => r.id), ['m2', 'm1', 'm0']);
        assert.deepEqual((await second!.conversations.timeline('conv-1', [number, email], 10, { createdAt: at(2), id: 'm2' })).map((r) => r.id), ['m1', 'm0']);
        assert.deepEqual(await second!.conversations.timeline('conv-2', [number, email], 10), [], "another agent's rows are not in it");
        await first!.db.transaction((tx) => first!.conversations.deleteAgent(tx, 'conv-1'));
        assert.equal(await second!.conversations.resolve('conv-1', email), email);
      });
    });

    it('conversation summaries: kept by the rows of both tables, merged by links, paged by keyset, rebuilt the same from the rows', async () => {
      await withNodes(2, async ([first, second]) => {
        const at = (s: number) => new Date(Date.parse('2026-06-01T00:00:00Z') + s * 1000).toISOString();
        const message = (id: string, agentId: string, from: string, createdAt: string): MessageRecord => ({
          id, agentId, channel: 'sms', direction: 'inbound', from, to: '+15550000001', subject: null, body: id, html: null,
          mediaUrls: [], externalId: id, status: 'received', segments: 1, cost: null, error: null, delivery: 'done', createdAt, updatedAt: createdAt,
        });
        const number = (n: number) => `+1555010${String(n).padStart(4, '0')}`;
        // 30 conversations, two rows each; four share one time, so the id breaks the tie.
        for (let n = 0; n < 30; n++) {
          const time = n < 4 ? 100 : n;
          await (n % 2 ? first : second)!.messages.insert(message(`sm-${n}-a`, 'sum-1', number(n), at(time - 1)));
          await (n % 2 ? second : first)!.messages.insert(message(`sm-${n}-b`, 'sum-1', number(n), at(time)));
        }
        await first!.messages.insert(message('sm-other', 'sum-2', number(0), at(500)));
        // A call is activity too: conversation 5 becomes the latest.
        await first!.calls.insert({
          callSid: 'CA-sum', sessionId: 'ses-sum', agentId: 'sum-1', direction: 'inbound', mode: 'relay', from: number(5), to: '+15550000001',
          status: 'ringing', durationSeconds: 0, cost: null, createdAt: at(200), updatedAt: at(200),
        });
        // A row named by the backfill counts when it is named.
        await first!.messages.insert(message('sm-late', 'sum-1', number(40), at(300)));
        await first!.db.execute("UPDATE messages SET conversation_id = NULL WHERE id = 'sm-late'");
        await first!.db.execute("DELETE FROM conversation_summaries WHERE conversation_id = ?", [conversationIdOf('sum-1', number(40))]);
        assert.equal(await second!.conversations.backfill(10), 1);

        const pageAll = async (store: Store, limit: number) => {
          const all: { conversationId: string; lastAt: string }[] = [];
          for (let after: { createdAt: string; id: string } | undefined; ; ) {
            const page = await store.conversations.recent('sum-1', limit, after);
            all.push(...page);
            if (page.length < limit) return all;
            after = { createdAt: page.at(-1)!.lastAt, id: page.at(-1)!.conversationId };
          }
        };
        const expected = [
          [conversationIdOf('sum-1', number(40)), at(300)],
          [conversationIdOf('sum-1', number(5)), at(200)],
          ...[0, 1, 2, 3].map((n) => [conversationIdOf('sum-1', number(n)), at(100)]).sort((a, b) => (a[0]! < b[0]! ? 1 : -1)),
          ...Array.from({ length: 26 }, (_, i) => 29 - i).filter((n) => n !== 5).map((n) => [conversationIdOf('sum-1', number(n)), at(n)]),
        ];
        const listed = await pageAll(second!, 4);
        assert.deepEqual(listed.map((c) => [c.conversationId, c.lastAt]), expected, 'each once, latest first, ties by id descending');
        assert.deepEqual(await pageAll(first!, 100), listed, 'the same in one page');

        // Linking 29 into 10: one conversation with the later activity; what was linked away is not listed.
        const [ten, twentyNine] = [conversationIdOf('sum-1', number(10)), conversationIdOf('sum-1', number(29))];
        assert.equal(await first!.conversations.link('sum-1', number(10), [number(29)], at(400)), ten);
        const afterLink = await pageAll(second!, 7);
        assert.equal(afterLink.length, 30);
        assert.equal(afterLink.find((c) => c.conversationId === twentyNine), undefined);
        assert.equal(afterLink.find((c) => c.conversationId === ten)?.lastAt, at(29));
        // A new row of the linked address moves the conversation it joined.
        await second!.messages.insert(message('sm-29-c', 'sum-1', number(29), at(250)));
        assert.deepEqual((await first!.conversations.recent('sum-1', 2)).map((c) => c.conversationId), [conversationIdOf('sum-1', number(40)), ten]);
        // Deleting a conversation's latest row takes its activity back; deleting its only rows, the conversation.
        await first!.messages.delete('sm-29-c');
        assert.deepEqual((await first!.conversations.recent('sum-1', 2)).map((c) => [c.conversationId, c.lastAt]), [[conversationIdOf('sum-1', number(40)), at(300)], [conversationIdOf('sum-1', number(5)), at(200)]]);
        assert.equal((await pageAll(second!, 50)).find((c) => c.conversationId === ten)?.lastAt, at(29));
        await first!.messages.delete('sm-late');
        assert.equal((await pageAll(second!, 50)).find((c) => c.conversationId === conversationIdOf('sum-1', number(40))), undefined);

        // What the triggers and links kept is what the migration computes from the rows.
        const kept = await first!.db.query('SELECT agent_id, conversation_id, last_at FROM conversation_summaries ORDER BY agent_id, conversation_id');
        await first!.db.execute('DELETE FROM conversation_summaries');
        await first!.db.execute(SUMMARIES_FROM_ROWS);
        assert.deepEqual(await second!.db.query('SELECT agent_id, conversation_id, last_at FROM conversation_summaries ORDER BY agent_id, conversation_id'), kept);

        // Deprovisioning forgets the links: the linked address is its own conversation again.
        await first!.db.transaction((tx) => first!.conversations.deleteAgent(tx, 'sum-1'));
        const unlinked = await pageAll(second!, 50);
        assert.deepEqual([unlinked.length, unlinked.find((c) => c.conversationId === twentyNine)?.lastAt, unlinked.find((c) => c.conversationId === ten)?.lastAt], [30, at(29), at(10)]);
        assert.deepEqual((await second!.conversations.recent('sum-2', 10)).map((c) => c.lastAt), [at(500)], "another agent's is its own");
      });
    });

    it('replies: the first reply of a conversation after a cursor, the latest send, and a reply task read back', async () => {
      await withNodes(2, async ([first, second]) => {
        const now = new Date().toISOString();
        const customer = { ...inbound('reply-1', 'SMR1', now), from: '+14155550111' };
        const other = { ...inbound('reply-1', 'SMR2', now), from: '+14155550122' };
        const outbound: MessageRecord = { ...customer, id: 'msg-out', direction: 'outbound', from: customer.to, to: customer.from, externalId: null, status: 'queued' };
        await first!.db.executeAll([first!.messages.insertInboundStatement(other), first!.inbox.appendStatement(receivedEntry(other))]);
        await first!.db.executeAll([first!.messages.insertInboundStatement(outbound), first!.inbox.appendStatement(statusEntry(outbound, { status: 'queued' }))]);
        const conversationId = conversationIdOf('reply-1', customer.from);
        assert.deepEqual(await second!.inbox.conversationMarks('reply-1', conversationId), { lastCursor: 2, lastSendCursor: 2 });
        assert.equal(await second!.inbox.firstOf('reply-1', conversationId, 0, ['message.received', 'voicemail']), undefined, "the other number's message is another conversation");
        await first!.db.executeAll([first!.messages.insertInboundStatement(customer), first!.inbox.appendStatement(receivedEntry(customer))]);
        const reply = await second!.inbox.firstOf('reply-1', conversationId, 2, ['message.received', 'voicemail']);
        assert.deepEqual([reply?.cursor, reply?.messageId], [3, customer.id]);
        assert.equal(await second!.inbox.firstOf('reply-1', conversationId, 3, ['message.received']), undefined);
        assert.deepEqual(await second!.inbox.conversationMarks('reply-1', 'cnv_nothing'), { lastCursor: 0, lastSendCursor: 0 });

        const task = { taskId: 'task-r', owner: 'team', agentId: 'reply-1', kind: 'reply' as const, conversationId, afterCursor: 2, deadlineAt: now, createdAt: now, ttlMs: 90_000_000_000 };
        await first!.tasks.create(task);
        assert.deepEqual(await second!.tasks.find('task-r', 'team'), { ...task, cancelledAt: null });
      });
    });

    it('tasks: found only by their owner on any node, a long TTL read back as a number, cancelled once', async () => {
      await withNodes(2, async ([first, second]) => {
        const now = new Date().toISOString();
        const task = { taskId: 'task-1', owner: 'client:task-agent', agentId: 'task-agent', kind: 'call' as const, callId: 'CA-task', createdAt: now, ttlMs: 30 * 86_400_000 };
        await first!.tasks.create(task);
        assert.deepEqual(await second!.tasks.find('task-1', 'client:task-agent'), { ...task, cancelledAt: null });
        assert.equal(await second!.tasks.find('task-1', 'client:other-agent'), undefined, "another owner's task is not found");
        assert.equal(await second!.tasks.find('task-nobody', 'client:task-agent'), undefined);
        assert.equal(await first!.tasks.cancel('task-1', now), true);
        assert.equal(await second!.tasks.cancel('task-1', new Date().toISOString()), false, 'cancelled once');
        assert.equal((await first!.tasks.find('task-1', 'client:task-agent'))!.cancelledAt, now);
      });
    });

    it('tasks: those whose time to live ended before the sweep are deleted, to the millisecond; live ones kept', async () => {
      await withNodes(2, async ([first, second]) => {
        const t0 = Date.parse('2026-04-01T00:00:00.000Z');
        const sweepAt = t0 + 7_200_000;
        const task = (taskId: string, createdMs: number, ttlMs: number) =>
          ({ taskId, owner: 'team', agentId: 'sweep-agent', kind: 'call' as const, callId: `CA-${taskId}`, createdAt: new Date(createdMs).toISOString(), ttlMs });
        const tasks = [
          task('ended', t0, 3_600_000),
          task('ended-just-before', t0 + 1, 7_200_000 - 2),
          task('ends-just-after', t0 + 1, 7_200_000),
          task('long-lived', t0 - 86_400_000, 30 * 86_400_000),
          task('made-after', sweepAt + 1000, 0),
        ];
        for (const t of tasks) await first!.tasks.create(t);
        assert.equal(await second!.tasks.sweepExpired(new Date(t0)), 0, 'none had ended by t0');
        assert.equal(await second!.tasks.sweepExpired(new Date(sweepAt)), 2);
        const left = await Promise.all(tasks.map(async (t) => [t.taskId, (await first!.tasks.find(t.taskId, 'team')) !== undefined]));
        assert.deepEqual(Object.fromEntries(left), { ended: false, 'ended-just-before': false, 'ends-just-after': true, 'long-lived': true, 'made-after': true });
        assert.equal(await first!.tasks.sweepExpired(new Date(sweepAt)), 0, 'a second sweep finds nothing');
      });
    });

    it('callback log: attempts from two nodes, the endpoint disabled once, replay, paging, parking, retention and deprovisioning', async () => {
      await withNodes(2, async (stores) => {
        const [first, second] = stores as [Store, Store];
        const t0 = Date.parse('2026-04-01T00:00:00Z');
        const at = (ms: number) => new Date(t0 + ms).toISOString();
        const event = (id: string) => ({ id, type: 'message.status' as const, agentId: 'cb-1', createdAt: at(0), data: { n: id } });
        for (const id of ['evt_a', 'evt_b']) await first.callbacks.keep(event(id), null, new Date(t0));
        const again = await second.callbacks.keep({ ...event('evt_a'), data: { n: 'other' } }, null, new Date(t0 + 5));
        assert.deepEqual([again.event.data, again.createdAt], [{ n: 'evt_a' }, at(0)], 'a kept event is kept once');
        const attempt = (n: number, eventId: string, ms: number, outcome: 'retrying' | 'delivered') => ({
          id: `cba_${String(n).padStart(26, '0')}`, eventId, agentId: 'cb-1', url: 'https://agent.example/hook', attempt: 1, statusCode: outcome === 'delivered' ? 200 : 500,
          error: null, latencyMs: 12, responseExcerpt: 'x', outcome, createdAt: at(ms),
        });
        const disableBefore = new Date(t0 + 50);
        const endpoints = await Promise.all([
          first.callbacks.recordAttempt(attempt(1, 'evt_a', 100, 'retrying'), 'pending', disableBefore),
          second.callbacks.recordAttempt(attempt(2, 'evt_b', 100, 'retrying'), 'pending', disableBefore),
        ]);
        assert.deepEqual(endpoints.map((e) => e.disabledAt), [null, null], 'a run of failures that starts now is not old enough');
        const later = await second.callbacks.recordAttempt(attempt(3, 'evt_a', 200, 'retrying'), 'pending', new Date(t0 + 150));
        assert.deepEqual([later.failingSince, later.disabledAt], [at(100), at(200)], 'the run started by the first failure disables it');
        assert.deepEqual((await first.callbacks.log('cb-1', 2)).map((a) => [a.id, a.eventType]), [[attempt(3, '', 0, 'retrying').id, 'message.status'], [attempt(2, '', 0, 'retrying').id, 'message.status']]);
        assert.deepEqual((await first.callbacks.log('cb-1', 5, attempt(2, '', 0, 'retrying').id)).map((a) => a.attempt), [1]);
        const replayed = await first.callbacks.replay('cb-1', { eventId: 'evt_a' });
        assert.deepEqual(replayed.map((e) => [e.eventId, e.state, e.attempts, e.replays]), [['evt_a', 'pending', 0, 1]]);
        assert.deepEqual(await second.callbacks.endpoint('cb-1'), { agentId: 'cb-1', url: 'https://agent.example/hook', failingSince: null, disabledAt: null });
        await first.callbacks.recordAttempt(attempt(4, 'evt_b', 300, 'delivered'), 'delivered', new Date(t0));
        assert.equal(await first.callbacks.sweep(new Date(t0 + 250)), 4, 'three old attempts and the delivered event; the pending event stays');
        assert.deepEqual((await first.callbacks.pendingNotifications()).map((e) => e.eventId), ['evt_a']);
        await first.callbacks.park('evt_a', new Date(t0 + 10_000));
        assert.deepEqual(await second.callbacks.pendingNotifications(), [], 'a parked event is the parking sweep\'s');
        assert.deepEqual(await second.callbacks.parkedBefore(new Date(t0 + 9_999)), []);
        const [parked] = await second.callbacks.parkedBefore(new Date(t0 + 10_000));
        assert.equal(parked?.parkedUntil, at(10_000));
        await second.callbacks.unpark('evt_a', at(9_000));
        assert.equal((await first.callbacks.event('evt_a'))?.parkedUntil, at(10_000), 'parked again meanwhile: left parked');
        await second.callbacks.unpark('evt_a', at(10_000));
        assert.equal((await first.callbacks.event('evt_a'))?.parkedUntil, null);
        await first.db.transaction((tx) => first.callbacks.deleteAgent(tx, 'cb-1'));
        assert.deepEqual([await first.callbacks.log('cb-1', 5), await first.callbacks.endpoint('cb-1'), await first.callbacks.event('evt_a')], [[], undefined, undefined]);
      });
    });
  });
}

function inbound(agentId: string, externalId: string, createdAt: string): MessageRecord {
  return {
    id: `msg-${externalId}`, agentId, channel: 'sms', direction: 'inbound', from: '+14155550100', to: '+12025550101', subject: null, body: 'hi', html: null,
    mediaUrls: [], externalId, status: 'received', segments: 1, cost: null, error: null, delivery: 'pending', createdAt, updatedAt: createdAt,
  };
}

function letter(agentId: string, id: string, createdAt: string, channel: 'sms' | 'email'): DeadLetter {
  return { id, agentId, channel, direction: 'inbound', reason: 'agent_offline', from: '+14155550100', to: '+12025550101', body: id, mediaUrls: [], externalId: null, attempts: 0, createdAt };
}
