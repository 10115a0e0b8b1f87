import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentClient } from '../src/agents/agent-client.js';
import { createLogger } from '../src/logger.js';
import { Reconciler } from '../src/messaging/reconciler.js';
import type { Store } from '../src/store/store.js';

const MIN = 60_000;
const reconciler = new Reconciler({
  store: {} as Store,
  agents: {} as AgentClient,
  logger: createLogger({ level: 'silent', pretty: false }),
  afterMs: 15 * MIN,
  boundMs: 24 * 60 * MIN,
  everyMs: MIN,
});
const SENT = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(SENT + ms).toISOString();

describe('the reconciler schedule', () => {
  it('asks after RECONCILE_AFTER_MS, then each time the age doubles, then at the bound', () => {
    const asks: number[] = [];
    let reconciledAt: string | null = null;
    for (;;) {
      const due = reconciler.dueAt({ agentId: 'a', createdAt: iso(0), reconciledAt });
      if (asks.length > 0 && due - SENT > 24 * 60 * MIN) break;
      asks.push((due - SENT) / MIN);
      reconciledAt = new Date(due).toISOString();
    }
    assert.deepEqual(asks, [15, 30, 60, 120, 240, 480, 960, 1440]);
  });

  it('an ask at the bound that did not finish is made again a sweep later', () => {
    const due = reconciler.dueAt({ agentId: 'a', createdAt: iso(0), reconciledAt: iso(24 * 60 * MIN) });
    assert.equal(due - SENT, 24 * 60 * MIN + MIN);
  });
});
