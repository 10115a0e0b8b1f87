import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallTaskRecord } from '../src/store/repositories/tasks.js';
import { callTaskState, taskExpired } from '../src/tasks/call-task.js';
import type { CallDetail } from '../src/voice/call-reads.js';

const CREATED = '2026-07-28T10:00:00.000Z';
const task: CallTaskRecord = { taskId: 'task-1', owner: 'client:a', agentId: 'a', kind: 'call', callId: 'CA1', createdAt: CREATED, ttlMs: 60_000, cancelledAt: null };
const ledger = { greeting: null, turns: [] };
const call = (fields: Partial<CallDetail>): CallDetail => ({
  callId: 'CA1', callSid: 'CA1', sessionId: 'ses', agentId: 'a', direction: 'outbound', mode: 'relay', status: 'ringing', from: '+1', to: '+2',
  createdAt: CREATED, connectedAt: null, endedAt: null, durationSeconds: 0, cost: null, summary: null, traceparent: null, recording: null, ledger: null, transcript: [], ...fields,
});

describe('a call task derived from its call', () => {
  it('expires once its time to live has passed', () => {
    const created = Date.parse(CREATED);
    assert.equal(taskExpired(task, created + 59_999), false);
    assert.equal(taskExpired(task, created + 60_000), true);
  });

  it('works while the call is live, and while an ended call waits for its ledger (bounded)', () => {
    assert.equal(callTaskState(task, call({ status: 'in-progress', connectedAt: CREATED })).status, 'working');
    const ended = call({ status: 'completed', connectedAt: CREATED, durationSeconds: 5 });
    const connected = Date.parse(CREATED);
    assert.equal(callTaskState(task, ended, connected + 6000).status, 'working', 'the ledger is being written');
    assert.equal(callTaskState(task, ended, connected + 60_000).status, 'completed', 'not waited for past the bound');
  });

  it('completes with the outcome; a call not answered is a tool error, not a failed task', () => {
    const answered = callTaskState(task, call({ status: 'completed', connectedAt: CREATED, endedAt: CREATED, durationSeconds: 12, cost: 0.02, ledger }));
    assert.equal(answered.status, 'completed');
    assert.deepEqual(answered.status === 'completed' && [answered.outcome.answered, answered.outcome.durationSeconds, answered.outcome.cost], [true, 12, 0.02]);
    const busy = callTaskState(task, call({ status: 'busy' }));
    assert.deepEqual(busy.status === 'completed' && [busy.outcome.answered, busy.outcome.status], [false, 'busy']);
  });

  it('is cancelled once cancelled, and failed only when its call is no longer on record', () => {
    assert.equal(callTaskState({ ...task, cancelledAt: CREATED }, call({ status: 'completed' })).status, 'cancelled');
    assert.equal(callTaskState(task, undefined).status, 'failed');
  });
});
