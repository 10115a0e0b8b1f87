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
    const asks = [15];
    while (asks.at(-1)! < 24 * 60) asks.push((reconciler.nextAsk(iso(0), SENT + asks.at(-1)! * MIN) - SENT) / MIN);
    assert.deepEqual(asks, [15, 30, 60, 120, 240, 480, 960, 1440]);
  });

  it('an ask at the bound that did not finish is made again a sweep later, then less and less often', () => {
    const bound = SENT + 24 * 60 * MIN;
    assert.equal(reconciler.nextAsk(iso(0), bound) - bound, MIN);
    assert.equal(reconciler.nextAsk(iso(0), bound + MIN) - bound, 2 * MIN);
    assert.equal(reconciler.nextAsk(iso(0), bound + 2 * MIN) - bound, 4 * MIN);
  });
});
