import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DeliveryStatusEvent } from '@switchboard/sdk';
import { AgentActor } from '../src/actors/agent-actor.js';
import type { DeliveryService } from '../src/delivery/delivery-service.js';
import { RuntimeEvents } from '../src/events.js';
import type { MessagingContext } from '../src/messaging/context.js';
import { applyReceipt } from '../src/messaging/receipts.js';
import { RecentSends, SentThroughHere } from '../src/messaging/recent-sends.js';
import type { AgentRecord } from '../src/store/repositories/agents.js';
import type { MessageRecord } from '../src/store/repositories/messages.js';
import { openStore, type Store } from '../src/store/store.js';

const sent = (externalId: string, status: MessageRecord['status'] = 'queued'): MessageRecord => ({
  id: `msg_${externalId}`,
  agentId: 'receipts-1',
  channel: 'sms',
  direction: 'outbound',
  from: '+12025550100',
  to: '+14155550123',
  subject: null,
  body: 'hello',
  html: null,
  mediaUrls: [],
  externalId,
  status,
  segments: 1,
  cost: null,
  error: null,
  delivery: 'done',
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

const receipt = (externalId: string, status: DeliveryStatusEvent['status']): DeliveryStatusEvent =>
  ({ type: 'status', channel: 'sms', externalId, status, cost: null }) as DeliveryStatusEvent;

describe('recent sends', () => {
  it('keeps unsettled sends per actor, lets a final status go, and holds at most its bound', async () => {
    const recent = new RecentSends(3);
    const a = new AgentActor('a');
    const b = new AgentActor('b');
    const committed = Promise.resolve();
    recent.remember(a, sent('S1'), committed);
    assert.equal((await recent.find(a, 'S1'))?.status, 'queued');
    assert.equal(await recent.find(b, 'S1'), undefined, "another agent's actor sees nothing");
    recent.update(a, { ...sent('S1'), status: 'sent' });
    assert.equal((await recent.find(a, 'S1'))?.status, 'sent');
    recent.update(a, { ...sent('S1'), status: 'delivered' });
    assert.equal(await recent.find(a, 'S1'), undefined, 'a final status is not kept');
    recent.remember(a, { ...sent('S0'), status: 'failed' }, committed);
    assert.equal(await recent.find(a, 'S0'), undefined, 'a send that failed at once is not kept');
    for (const id of ['S2', 'S3', 'S4', 'S5']) recent.remember(a, sent(id), committed);
    assert.equal(await recent.find(a, 'S2'), undefined, 'the oldest made room');
    assert.deepEqual(await Promise.all(['S3', 'S4', 'S5'].map(async (id) => (await recent.find(a, id))?.externalId)), ['S3', 'S4', 'S5']);
    recent.remember(a, sent('S6'), Promise.reject(new Error('disk full')));
    assert.equal(await recent.find(a, 'S6'), undefined, 'a send whose answer was not committed is not kept');
  });

  it('keeps the sends answered through this process by agent and provider id, until their status is final, at most its bound', () => {
    const here = new SentThroughHere(2);
    const answer = (externalId: string, status = 'queued') => ({ success: true as const, messageId: `msg_${externalId}`, externalId, status, channel: 'sms' as const, from: '+12025550100', to: '+14155550123', cost: 0.0079, provider: 'twilio' });
    here.remember('a', answer('T1'));
    assert.deepEqual(here.find('a', 'T1'), { id: 'msg_T1', agentId: 'a', channel: 'sms', from: '+12025550100', to: '+14155550123', externalId: 'T1', provider: 'twilio', status: 'queued' });
    assert.equal(here.find('b', 'T1'), undefined, "another agent's receipt does not find it");
    here.update(here.find('a', 'T1')!, 'sent');
    assert.equal(here.find('a', 'T1')?.status, 'sent');
    here.update(here.find('a', 'T1')!, 'delivered');
    assert.equal(here.find('a', 'T1'), undefined, 'a final status is not kept');
    here.remember('a', answer('T2', 'failed'));
    assert.equal(here.find('a', 'T2'), undefined, 'a send that failed at once is not kept');
    for (const id of ['T3', 'T4', 'T5']) here.remember('a', answer(id));
    assert.equal(here.find('a', 'T3'), undefined, 'the oldest made room');
    assert.equal(here.find('a', 'T5')?.id, 'msg_T5');
  });

  describe('receipts over a kept send', () => {
    /** Runs `work` on a fresh store, with a context, an agent and its actor; counts the store's reads of a message. */
    const withStore = async (work: (t: Awaited<ReturnType<typeof setup>>) => Promise<void>) => {
      const t = await setup();
      try {
        await work(t);
      } finally {
        await t.store.close();
        rmSync(t.dir, { recursive: true, force: true });
      }
    };
    const setup = async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-receipts-'));
      const store = await openStore({ dataDir: dir });
      const reads: string[] = [];
      const findOutbound = store.messages.findOutbound.bind(store.messages);
      store.messages.findOutbound = async (agentId, externalId) => {
        reads.push(externalId);
        return findOutbound(agentId, externalId);
      };
      const context = {
        events: new RuntimeEvents(),
        delivery: { reachable: () => false } as unknown as DeliveryService,
        recentSends: new RecentSends(),
        // No driver here: the metrics' provider label is left out.
        drivers: { for: () => undefined },
      } as unknown as MessagingContext;
      const agent = { agentId: 'receipts-1' } as AgentRecord;
      return { dir, store, reads, context, agent, actor: new AgentActor('receipts-1') };
    };
    const statuses = async (store: Store) =>
      (await store.db.query<{ status: string }>("SELECT status FROM inbox_entries WHERE agent_id = 'receipts-1' ORDER BY seq")).map((r) => r.status);

    it('applies each receipt without reading the message, with its inbox entry, and forgets it at its final status', () =>
      withStore(async ({ store, reads, context, agent, actor }) => {
        await store.db.executeAll([store.messages.insertOutboundStatement(sent('SMK1'), [])]);
        context.recentSends.remember(actor, sent('SMK1'), Promise.resolve());
        await applyReceipt(context, store, actor, agent, receipt('SMK1', 'sent'));
        await applyReceipt(context, store, actor, agent, receipt('SMK1', 'delivered'));
        assert.deepEqual(reads, [], 'no read');
        assert.equal((await store.messages.findOutbound('receipts-1', 'SMK1'))?.status, 'delivered');
        assert.deepEqual(await statuses(store), ['sent', 'delivered']);
        assert.equal(await context.recentSends.find(actor, 'SMK1'), undefined);
      }));

    it('a receipt out of order (a sent after delivered) changes nothing and adds no inbox entry, kept or read', () =>
      withStore(async ({ store, context, agent, actor }) => {
        await store.db.executeAll([store.messages.insertOutboundStatement(sent('SMK6'), [])]);
        context.recentSends.remember(actor, sent('SMK6'), Promise.resolve());
        await applyReceipt(context, store, actor, agent, receipt('SMK6', 'delivered'));
        await applyReceipt(context, store, actor, agent, receipt('SMK6', 'sent'));
        context.recentSends.remember(actor, { ...sent('SMK6'), status: 'delivered' }, Promise.resolve());
        await applyReceipt(context, store, actor, agent, receipt('SMK6', 'sent'));
        assert.equal((await store.messages.findOutbound('receipts-1', 'SMK6'))?.status, 'delivered');
        assert.deepEqual(await statuses(store), ['delivered']);
      }));

    it("a receipt that comes before the provider's answer is committed waits for the commit, and is not lost", () =>
      withStore(async ({ store, reads, context, agent, actor }) => {
        await store.db.executeAll([store.messages.insertOutboundStatement({ ...sent('SMK4'), externalId: null }, [])]);
        let commit!: () => void;
        const answered = new Promise<void>((resolve) => (commit = resolve)).then(() =>
          store.db.executeAll([store.messages.markSentStatement('msg_SMK4', { externalId: 'SMK4', status: 'queued', cost: null, segments: 1 }, { provider: 'twilio', from: sent('SMK4').from })]),
        );
        context.recentSends.remember(actor, sent('SMK4'), answered);
        const applying = applyReceipt(context, store, actor, agent, receipt('SMK4', 'sent'));
        commit();
        await applying;
        assert.deepEqual(reads, []);
        assert.equal((await store.messages.findOutbound('receipts-1', 'SMK4'))?.status, 'sent');
        assert.deepEqual(await statuses(store), ['sent']);
      }));

    it('adds no entry when the stored status moved on since (another writer), and still reads nothing', () =>
      withStore(async ({ store, reads, context, agent, actor }) => {
        await store.db.executeAll([store.messages.insertOutboundStatement(sent('SMK2'), [])]);
        context.recentSends.remember(actor, sent('SMK2'), Promise.resolve());
        // The reconciler (or another node) stored `sent` meanwhile; the kept copy still says `queued`.
        await store.db.executeAll([store.messages.applyStatusStatement('receipts-1', 'SMK2', 'sent', null, null)]);
        await applyReceipt(context, store, actor, agent, receipt('SMK2', 'sent'));
        assert.deepEqual(await statuses(store), [], 'the same status again adds no entry');
        await applyReceipt(context, store, actor, agent, receipt('SMK2', 'delivered'));
        assert.deepEqual(reads, [], 'no read');
        assert.equal((await store.messages.findOutbound('receipts-1', 'SMK2'))?.status, 'delivered');
        assert.deepEqual(await statuses(store), ['delivered']);
      }));

    it('reads a message this process does not keep (sent from another node, or before a restart)', () =>
      withStore(async ({ store, reads, context, agent, actor }) => {
        await store.db.executeAll([store.messages.insertOutboundStatement(sent('SMK3'), [])]);
        await applyReceipt(context, store, actor, agent, receipt('SMK3', 'delivered'));
        assert.deepEqual(reads, ['SMK3']);
        assert.deepEqual(await statuses(store), ['delivered']);
        await applyReceipt(context, store, actor, agent, receipt('SMK3', 'delivered'));
        assert.deepEqual(await statuses(store), ['delivered'], 'a repeat adds none');
      }));
  });
});
