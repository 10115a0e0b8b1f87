import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStore } from '../src/internal.js';
import { receivedEntry } from '../src/inbox/entries.js';
import { InboxRetention } from '../src/inbox/retention.js';
import { createLogger } from '../src/logger.js';
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
