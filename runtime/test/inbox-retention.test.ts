import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStore } from '../src/internal.js';
import { receivedEntry } from '../src/inbox/entries.js';
import { InboxRetention } from '../src/inbox/retention.js';
import { createLogger } from '../src/logger.js';
import { TEST_STORES } from './fixtures/stores.js';
import type { MessageRecord } from '../src/store/repositories/messages.js';

const logger = createLogger({ level: 'silent', pretty: false });
const DAY_MS = 86_400_000;

function message(n: number): MessageRecord {
  const at = new Date().toISOString();
  return {
    id: `msg-r${n}`, agentId: 'keeper', channel: 'sms', direction: 'inbound', from: '+14155550100', to: '+12025550101', subject: null, body: `m${n}`,
    html: null, mediaUrls: [], externalId: `SMR${n}`, status: 'received', segments: 1, cost: null, error: null, delivery: 'done', createdAt: at, updatedAt: at,
  };
}

describe('inbox retention', () => {
  it('removes acknowledged entries once older than the retention, never unacknowledged ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-inbox-'));
    const store = await openStore({ dataDir: dir });
    try {
      for (let n = 1; n <= 4; n++) {
        await store.db.executeAll([store.messages.insertInboundStatement(message(n)), store.inbox.appendStatement(receivedEntry(message(n)))]);
      }
      assert.equal(await store.inbox.acknowledge('keeper', 3), true);
      const retention = new InboxRetention(store, 7, logger);
      assert.equal(await retention.sweep(Date.now() + 6 * DAY_MS), 0, 'within the retention');
      assert.equal(await retention.sweep(Date.now() + 8 * DAY_MS), 3, 'the three acknowledged entries');
      assert.equal(await retention.sweep(Date.now() + 800 * DAY_MS), 0, 'the unacknowledged one stays, however old');
      assert.deepEqual((await store.inbox.read('keeper', 0, 10)).map((e) => e.payload.body), ['m4']);
      assert.deepEqual(await store.inbox.position('keeper'), { lastCursor: 4, ackedCursor: 3 }, 'cursors are not reused after a sweep');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('message and transcript retention (MESSAGE_RETENTION_DAYS, TRANSCRIPT_RETENTION_DAYS)', () => {
  for (const [name, open] of TEST_STORES) {
    it(`${name}: removes settled messages past it with the rows that name them; keeps pending and unacknowledged ones; empties old transcripts`, async () => {
      const { store, done } = await open();
      try {
        const pending = { ...message(11), delivery: 'pending' as const };
        for (const m of [message(10), pending, message(12), message(13)]) await store.db.executeAll([store.messages.insertInboundStatement(m), store.inbox.appendStatement(receivedEntry(m))]);
        // The first three entries acknowledged; message 13's is not.
        assert.equal(await store.inbox.acknowledge('keeper', 3), true);
        const later = (days: number) => new Date(Date.now() + days * DAY_MS);
        assert.equal(await store.contentRetention.sweepMessages(new Date(Date.now() - DAY_MS)), 0, 'nothing older than a day ago');
        // Batches of one: the sweep goes on batch after batch.
        assert.equal(await store.contentRetention.sweepMessages(later(1), 1), 2, 'the settled, acknowledged ones (10 and 12)');
        const left = await store.db.query<{ id: string }>("SELECT id FROM messages WHERE agent_id = 'keeper' ORDER BY id");
        assert.deepEqual(left.map((r) => r.id), ['msg-r11', 'msg-r13']);
        const entries = await store.db.query<{ message_id: string }>("SELECT message_id FROM inbox_entries WHERE agent_id = 'keeper' ORDER BY seq");
        assert.deepEqual(entries.map((r) => r.message_id), ['msg-r11', 'msg-r13'], "the removed messages' inbox entries went with them");
        // A call's transcript is emptied; the call stays.
        const at = new Date().toISOString();
        await store.db.execute(
          "INSERT INTO calls (call_sid, session_id, agent_id, direction, mode, from_address, to_address, status, duration_seconds, created_at, updated_at, transcript) VALUES ('CA1', 'ses1', 'keeper', 'inbound', 'relay', '+14155550100', '+12025550101', 'completed', 42, ?, ?, ?)",
          [at, at, JSON.stringify([{ role: 'caller', text: 'my card number is…' }])],
        );
        assert.equal(await store.contentRetention.sweepTranscripts(new Date(Date.now() - DAY_MS)), 0);
        assert.equal(await store.contentRetention.sweepTranscripts(later(1)), 1);
        assert.deepEqual(await store.db.query("SELECT call_sid, duration_seconds, transcript FROM calls WHERE call_sid = 'CA1'"), [{ call_sid: 'CA1', duration_seconds: 42, transcript: null }]);
      } finally {
        await done();
      }
    });
  }
});
