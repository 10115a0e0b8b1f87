import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { hasErrorCode } from '@switchboard/sdk';
import { TokenService } from '../auth/token-service.js';
import { Provisioner } from '../provisioning/provisioner.js';
import { SecretBox, hashToken, newToken } from '../secrets.js';
import { migrate, schemaVersion } from '../store/migrate.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import { describeAgentRecordCases } from './agent-record-conformance.js';
import { describeContactPolicyCases } from './contact-policy-conformance.js';
import { describeMessageCases } from './message-conformance.js';
import { inbound, nodesOf, type DatabaseUnderTest } from './conformance-nodes.js';

export type { DatabaseUnderTest } from './conformance-nodes.js';

/**
 * Runs the cases every `Database` implementation must pass, through the repositories the runtime
 * uses. `create` gives a new empty database for each case. The concurrency cases open two or more
 * connections, as two nodes of a cluster would, and race them.
 */
export function describeDatabaseConformance(name: string, create: () => Promise<DatabaseUnderTest>): void {
  const withNodes = nodesOf(create);

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
        await s.db.executeAll([s.messages.markSentStatement(outbound.id, { externalId: 'SM2', status: 'sent', cost: 0.0083, segments: 2 }, { provider: 'twilio', from: outbound.from })]);
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

    describeAgentRecordCases(withNodes);
    describeContactPolicyCases(withNodes);
    describeMessageCases(withNodes);
  });
}
