import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryBus } from '../src/bus/memory-bus.js';
import { RuntimeEvents, forwardEvents, receiveEvents } from '../src/events.js';
import { eventSubject, eventWildcard } from '../src/protocol/index.js';
import { eventually } from '../src/testing/eventually.js';

describe("a runtime node's events at the gateways", () => {
  it('arrive whole and in order, many to a bus message, and a single event of an older node still counts', async () => {
    const bus = new MemoryBus();
    const node = new RuntimeEvents();
    const gateway = new RuntimeEvents();
    forwardEvents(node, bus);
    receiveEvents(gateway, bus);
    const onTheBus: string[] = [];
    bus.subscribe(eventWildcard(), (_payload, subject) => void onTheBus.push(subject));
    const heard: string[] = [];
    gateway.on('usage', ({ action }) => void heard.push(`usage ${action}`));
    gateway.on('providerAttempt', ({ outcome }) => void heard.push(`attempt ${outcome}`));
    for (let i = 0; i < 300; i++) {
      node.emit('usage', { channel: 'sms', action: `send-${i}`, cost: 0.01 });
      node.emit('providerAttempt', { channel: 'sms', provider: 'twilio', outcome: 'accepted' });
    }
    await eventually(() => heard.length === 600, { timeoutMs: 5_000, message: () => `${heard.length} of 600 events heard` });
    assert.deepEqual(heard.filter((h) => h.startsWith('usage')), Array.from({ length: 300 }, (_, i) => `usage send-${i}`), 'in the order emitted');
    assert.ok(onTheBus.length <= 3, `${onTheBus.length} bus messages for 600 events`);
    const letters: string[] = [];
    gateway.on('deadLetter', ({ reason }) => void letters.push(reason));
    bus.publish(eventSubject('deadLetter'), { agentId: 'agent-1', reason: 'agent_offline' });
    bus.publish(eventSubject('notAnEvent'), { anything: true });
    await eventually(() => letters.length === 1, { timeoutMs: 5_000 });
    assert.deepEqual(letters, ['agent_offline']);
  });
});
