import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ErrorCodes, hasErrorCode } from '@switchboard/sdk';
import { requireOpenWindow, serviceWindowAt, windowClosesAt } from '../src/conversations/service-window.js';
import { openStore, type Store } from '../src/store/store.js';
import type { MessageRecord } from '../src/store/repositories/messages.js';

const HOUR = 60 * 60 * 1000;
const PERSON = '+14155550191';

function message(overrides: Partial<MessageRecord>): MessageRecord {
  const at = '2026-11-20T10:00:00.000Z';
  return {
    id: 'msg_in', agentId: 'wa', channel: 'whatsapp', direction: 'inbound', from: PERSON, to: '+14155550100', subject: null, body: 'hi', html: null,
    mediaUrls: [], externalId: 'SM1', status: 'received', segments: 1, cost: null, error: null, delivery: 'done', createdAt: at, updatedAt: at, ...overrides,
  };
}

describe("WhatsApp's service window, from the store", () => {
  let dir: string;
  let store: Store;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-window-'));
    store = await openStore({ dataDir: dir });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is open for 24 hours after the last message, closed before anyone wrote', () => {
    const last = '2026-11-20T10:00:00.000Z';
    assert.equal(windowClosesAt(last), '2026-11-21T10:00:00.000Z');
    assert.deepEqual(serviceWindowAt(last, new Date(Date.parse(last) + 24 * HOUR - 1)), { channel: 'whatsapp', open: true, closesAt: '2026-11-21T10:00:00.000Z', lastInboundAt: last });
    assert.equal(serviceWindowAt(last, new Date(Date.parse(last) + 24 * HOUR)).open, false);
    assert.deepEqual(serviceWindowAt(undefined, new Date()), { channel: 'whatsapp', open: false, closesAt: null, lastInboundAt: null });
  });

  it("counts only the person's own WhatsApp messages to the agent, the newest of them", async () => {
    const refused = (now: string) => requireOpenWindow(store, 'wa', PERSON, new Date(now));
    await assert.rejects(refused('2026-11-20T11:00:00Z'), (err: unknown) => hasErrorCode(err, ErrorCodes.WHATSAPP_WINDOW_CLOSED) && /never written/.test(err.message));
    // An SMS from the number and a WhatsApp message to it open nothing.
    await store.messages.insertInbound(message({ id: 'msg_sms', channel: 'sms', externalId: 'SM0' }));
    await store.messages.insert(message({ id: 'msg_out', direction: 'outbound', from: '+14155550100', to: PERSON, externalId: 'SM9', status: 'delivered' }));
    await assert.rejects(refused('2026-11-20T11:00:00Z'), (err: unknown) => hasErrorCode(err, ErrorCodes.WHATSAPP_WINDOW_CLOSED));
    await store.messages.insertInbound(message({}));
    await store.messages.insertInbound(message({ id: 'msg_in2', externalId: 'SM2', createdAt: '2026-11-20T09:00:00.000Z' }));
    await requireOpenWindow(store, 'wa', PERSON, new Date('2026-11-21T09:59:59Z'));
    await assert.rejects(refused('2026-11-21T10:00:00Z'), (err: unknown) => {
      assert.ok(hasErrorCode(err, ErrorCodes.WHATSAPP_WINDOW_CLOSED));
      assert.match(String((err as { message?: unknown }).message), /closed at 2026-11-21T10:00:00\.000Z/);
      assert.deepEqual((err as { details?: unknown[] }).details, [{ to: PERSON, channel: 'whatsapp', open: false, closesAt: '2026-11-21T10:00:00.000Z', lastInboundAt: '2026-11-20T10:00:00.000Z' }]);
      return true;
    });
    await assert.rejects(requireOpenWindow(store, 'another-agent', PERSON, new Date('2026-11-20T11:00:00Z')), /never written/, "one agent's window is not another's");
  });

  it('a template send keeps its template for whoever finishes it, and the text the provider rendered once sent', async () => {
    const template = { id: `HX${'a'.repeat(32)}`, variables: { 1: 'Sam' } };
    await store.messages.insert(message({ id: 'msg_tpl', direction: 'outbound', from: '+14155550100', to: PERSON, externalId: null, status: 'queued', body: '[template x]', template }));
    assert.deepEqual((await store.messages.unsent('msg_tpl'))?.template, template);
    await store.db.executeAll([store.messages.markSentStatement('msg_tpl', { externalId: 'SM7', status: 'queued', cost: null, segments: 1, body: 'Hello Sam' }, { provider: 'twilio', from: '+14155550100' })]);
    const sent = await store.messages.get('msg_tpl');
    assert.deepEqual([sent?.body, sent?.externalId, sent?.template], ['Hello Sam', 'SM7', template]);
    assert.equal((await store.messages.get('msg_out'))?.template, undefined, 'a free-form message has none');
  });
});
