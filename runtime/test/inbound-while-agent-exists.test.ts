import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../src/internal.js';
import { receivedEntry } from '../src/inbox/entries.js';
import { TEST_STORES } from './fixtures/stores.js';
import type { MessageRecord } from '../src/store/repositories/messages.js';

/**
 * A cluster gateway stores inbound messages outside the agent's mailbox (messaging/inbound.ts), so a
 * deprovision may be under way on a runtime node: on PostgreSQL the message goes in only while its agent
 * exists, and never outlives the erase. (SQLite has one writer, in the one process that also
 * deprovisions; its plain insert stays coalescible: messages.ts.)
 */

function message(agentId: string, n: number): MessageRecord {
  const at = new Date().toISOString();
  return {
    id: `msg-${agentId}-${n}`, agentId, channel: 'sms', direction: 'inbound', from: '+14155550100', to: '+12025550101', subject: null, body: `m${n}`,
    html: null, mediaUrls: [], externalId: `SM${agentId}${n}`, status: 'received', segments: 1, cost: null, error: null, delivery: 'pending', createdAt: at, updatedAt: at,
  };
}

async function provision(store: Store, agentId: string): Promise<void> {
  const at = new Date().toISOString();
  await store.agents.insert(store.db, { agentId, displayName: agentId, status: 'active', blockedChannels: [], callbackUrl: null, sealedSigningSecret: null, greeting: null, systemPrompt: null, voice: null, language: null, channels: [], createdAt: at, updatedAt: at });
}

/** Stores `m` as the edge does: the message and its inbox entry in one group. */
async function storeAtEdge(store: Store, m: MessageRecord): Promise<boolean> {
  const [stored] = await store.db.executeAll([store.messages.insertInboundForAgentStatement(m), store.inbox.appendStatement(receivedEntry(m))]);
  return stored!.changes === 1;
}

const count = async (store: Store, agentId: string) => ({
  messages: Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM messages WHERE agent_id = ?', [agentId]))!.n),
  entries: Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM inbox_entries WHERE agent_id = ?', [agentId]))!.n),
});

for (const [name, open] of TEST_STORES.filter(([name]) => name === 'postgres')) {
  describe(`inbound messages stored while their agent exists (${name})`, () => {
    it('stores for an agent that exists, nothing for one that does not (or no longer does)', async () => {
      const { store, done } = await open();
      try {
        await provision(store, 'here');
        assert.equal(await storeAtEdge(store, message('here', 1)), true);
        // A provider's retry: the same provider id under a new message id, as each webhook mints one.
        assert.equal(await storeAtEdge(store, { ...message('here', 1), id: 'msg-here-retry' }), false, 'a provider retry is a duplicate');
        assert.equal(await storeAtEdge(store, message('nobody', 1)), false);
        assert.deepEqual(await count(store, 'here'), { messages: 1, entries: 1 });
        assert.deepEqual(await count(store, 'nobody'), { messages: 0, entries: 0 }, 'neither the message nor its inbox entry');
      } finally {
        await done();
      }
    });

    it('a message stored while a deprovision runs is in before its erase or not at all', async () => {
      const { store, done } = await open();
      try {
        await provision(store, 'leaving');
        let storing: Promise<boolean> | undefined;
        await store.db.transaction(async (tx) => {
          await store.agents.lockForRemoval(tx, 'leaving');
          await tx.execute('DELETE FROM messages WHERE agent_id = ?', ['leaving']);
          await store.inbox.deleteAgent(tx, 'leaving');
          // The edge stores now, after the erase and before the agent's row goes: without the lock it would
          // see the agent (not yet deleted for others) and leave a message of an agent that is gone.
          storing = storeAtEdge(store, message('leaving', 1));
          await new Promise((r) => setTimeout(r, 200));
          await store.agents.delete(tx, 'leaving');
        });
        await storing;
        assert.deepEqual(await count(store, 'leaving'), { messages: 0, entries: 0 }, 'nothing of the agent outlives its deprovision');
      } finally {
        await done();
      }
    });
  });
}
