import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { MetricsPort } from '@switchboard/runtime';
import { ProviderBoard, RECENT_ATTEMPTS } from '../../src/admin/provider-board.js';

// The board on its own: attempts per channel and provider, the error rate over the latest attempts
// only, and a circuit as the last report of any process left it.

describe('ProviderBoard', () => {
  it('counts attempts per channel and provider, the error rate over the last 100, and the times of the last success and failure', () => {
    let now = Date.parse('2026-11-29T02:00:00Z');
    const board = new ProviderBoard(() => now);
    for (let i = 0; i < 150; i++) board.attempt('sms', 'twilio', 'refused');
    now += 1000;
    for (let i = 0; i < 25; i++) board.attempt('sms', 'twilio', 'accepted');
    now += 1000;
    board.attempt('sms', 'twilio', 'ambiguous');
    const twilio = board.health('sms', 'twilio');
    assert.deepEqual(twilio.attempts, { accepted: 25, refused: 150, ambiguous: 1 });
    assert.equal(twilio.recentErrorRate, (RECENT_ATTEMPTS - 25) / RECENT_ATTEMPTS);
    assert.equal(twilio.lastSuccessAt, '2026-11-29T02:00:01.000Z');
    assert.equal(twilio.lastFailureAt, '2026-11-29T02:00:02.000Z');
    assert.deepEqual(board.health('whatsapp', 'twilio').attempts, { accepted: 0, refused: 0, ambiguous: 0 }, 'another channel of the same provider counts apart');
    assert.equal(board.health('whatsapp', 'twilio').recentErrorRate, null);
  });

  it("follows the runtime events: a circuit is the provider's, as last reported", () => {
    const events = new EventEmitter();
    const board = new ProviderBoard();
    board.observe(events as unknown as MetricsPort['events']);
    assert.equal(board.health('sms', 'twilio').circuit, 'closed');
    events.emit('providerCircuit', { provider: 'twilio', state: 'open' });
    events.emit('providerAttempt', { channel: 'sms', provider: 'telnyx', outcome: 'accepted' });
    assert.equal(board.health('sms', 'twilio').circuit, 'open');
    assert.equal(board.health('whatsapp', 'twilio').circuit, 'open');
    events.emit('providerCircuit', { provider: 'twilio', state: 'half-open' });
    assert.equal(board.health('sms', 'twilio').circuit, 'half-open');
    assert.equal(board.health('sms', 'telnyx').attempts.accepted, 1);
  });
});
