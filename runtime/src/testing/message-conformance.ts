import assert from 'node:assert/strict';
import { it } from 'node:test';
import { statusEntry } from '../inbox/entries.js';
import type { DeadLetter } from '../store/repositories/dead-letters.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';
import { inbound, type WithNodes } from './conformance-nodes.js';

/**
 * A message's life as every database must keep it: stored in one group with its usage or its dead
 * letter, priced by its receipt in one UPDATE, asked about by the reconciler once among nodes, and its
 * dead letters handed out once to concurrent consumers.
 */
export function describeMessageCases(withNodes: WithNodes): void {
  it('an outbound SMS and its usage are stored in one group unless the recipient opted out', async () => {
    await withNodes(1, async ([store]) => {
      const s = store!;
      const now = new Date().toISOString();
      const base = { ...inbound('opt-1', 'SM0', now), externalId: null, direction: 'outbound' as const, status: 'queued' as const, delivery: 'done' as const };
      const usage = { agentId: 'opt-1', channel: 'sms' as const, action: 'message', quantity: 1, providerCost: null, tariffCost: 0.0083, externalId: null, createdAt: now };
      const send = (id: string) =>
        s.db.executeAll([s.messages.insertOutboundStatement({ ...base, id }, [s.optOuts.absentCondition('sms', base.from, base.to)]), s.usage.insertForMessageStatement({ ...usage, id: `use-${id}` }, id)]);
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

  it('a receipt out of order never takes a message back to an earlier status', async () => {
    await withNodes(1, async ([store]) => {
      const s = store!;
      const now = new Date().toISOString();
      await s.messages.insert({ ...inbound('order-1', 'SMO1', now), id: 'msg-order', direction: 'outbound' as const, status: 'queued' as const, delivery: 'done' as const });
      const receipt = async (status: MessageRecord['status']) => {
        const [applied] = await s.db.executeAll([s.messages.applyStatusStatement('order-1', 'SMO1', status, null, null)]);
        return [status, applied!.changes, (await s.messages.get('msg-order'))!.status];
      };
      assert.deepEqual(
        [await receipt('sent'), await receipt('delivered'), await receipt('sent'), await receipt('queued'), await receipt('read'), await receipt('delivered'), await receipt('read')],
        [
          ['sent', 1, 'sent'],
          ['delivered', 1, 'delivered'],
          ['sent', 0, 'delivered'],
          ['queued', 0, 'delivered'],
          ['read', 1, 'read'],
          ['delivered', 0, 'read'],
          ['read', 1, 'read'],
        ],
      );
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

      // A receipt without a read (migration 20): its entry goes in only when the stored status is another, before the update.
      const receipt = (status: MessageRecord['status']) => {
        const sent = outbound('msg-r5', 'SMR5', 'sent', 60_000);
        return [
          b.inbox.appendStatement(statusEntry(sent, { status }), { messageStatusChangesTo: { messageId: sent.id, status } }),
          b.messages.applyStatusStatement('rec-1', 'SMR5', status, null, null),
        ];
      };
      const entries = async () => (await a.inbox.read('rec-1', 0, 50)).filter((e) => e.messageId === 'msg-r5').map((e) => e.status);
      await b.db.executeAll(receipt('sent'));
      assert.deepEqual(await entries(), [], 'the stored status already: no entry');
      await b.db.executeAll(receipt('delivered'));
      await a.db.executeAll(receipt('delivered'));
      assert.deepEqual(await entries(), ['delivered'], 'a change: one entry; its repeat (a provider retry) adds none');

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
}

function letter(agentId: string, id: string, createdAt: string, channel: 'sms' | 'email'): DeadLetter {
  return { id, agentId, channel, direction: 'inbound', reason: 'agent_offline', from: '+14155550100', to: '+12025550101', body: id, mediaUrls: [], externalId: null, attempts: 0, createdAt };
}
