// The ledger's arithmetic: offsets from each turn's start, where the time went, the summary's
// percentiles, and the transcript's turns and interruptions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CallLedger, TurnTimer, summarize } from '../../src/voice/call-ledger.js';

const T0 = Date.parse('2026-11-26T03:00:00.000Z');

function turn(stamps: Partial<Record<'callerStopped' | 'transcriptReady' | 'agentAsked' | 'replyBegan' | 'replyEnded' | 'ttsAsked' | 'ttsFirstAudio' | 'firstFrameSent', number>>): TurnTimer {
  const timer = new TurnTimer();
  for (const [name, at] of Object.entries(stamps)) timer.mark(name as 'agentAsked', T0 + at);
  return timer;
}

describe('call ledger', () => {
  it('splits a stream turn into speech-to-text, agent, text-to-speech and what Switchboard added', () => {
    const ledger = new CallLedger();
    ledger.greeting.mark('callerStopped', T0 - 1000);
    ledger.greeting.mark('ttsAsked', T0 - 990);
    ledger.greeting.mark('ttsFirstAudio', T0 - 900);
    ledger.greeting.mark('firstFrameSent', T0 - 899.5);
    const first = turn({ callerStopped: 0, transcriptReady: 10, agentAsked: 10.5, replyBegan: 60, replyEnded: 61, ttsAsked: 62, ttsFirstAudio: 100, firstFrameSent: 101.25 });
    first.mark('agentAsked', T0 + 999); // set once: a later stamp does not move it
    first.endpointingMs = 700;
    ledger.add(first, 1);
    const { greeting, turns } = ledger.record();
    assert.deepEqual(greeting?.latencyMs, 100.5);
    assert.deepEqual(greeting?.components, { transcriptionMs: null, agentMs: null, ttsMs: 90, switchboardMs: 10.5 });
    const [t1] = turns;
    assert.equal(t1!.turn, 1);
    assert.equal(t1!.at, new Date(T0).toISOString());
    assert.equal(t1!.endpointingMs, 700);
    assert.deepEqual(t1!.stamps, { transcriptReady: 10, agentAsked: 10.5, replyBegan: 60, replyEnded: 61, ttsAsked: 62, ttsFirstAudio: 100, firstFrameSent: 101.3 });
    assert.deepEqual(t1!.components, { transcriptionMs: 10, agentMs: 50.5, ttsMs: 38, switchboardMs: 2.8 });
    assert.equal(t1!.latencyMs, 101.3);
  });

  it('a relay turn has no speech steps; a turn with no reply has no latency', () => {
    const ledger = new CallLedger();
    ledger.add(turn({ callerStopped: 0, agentAsked: 0.2, replyBegan: 30, replyEnded: 31, firstFrameSent: 31.4 }), 1);
    ledger.add(turn({ callerStopped: 5000 }), 3);
    const [relay, silent] = ledger.record().turns;
    assert.deepEqual(relay!.components, { transcriptionMs: null, agentMs: 30.8, ttsMs: null, switchboardMs: 0.6 });
    assert.equal(silent!.latencyMs, null);
    assert.equal(silent!.components.switchboardMs, null);
    assert.equal(relay!.unanswered, null, 'answered');
    assert.equal(silent!.unanswered, 'call-ended', 'left without a reason: the call ended before its reply');
    assert.equal(ledger.record().greeting, null, 'no media start, no greeting entry');
  });

  it('keeps the reason a turn got no reply', () => {
    const ledger = new CallLedger();
    const nothing = turn({ callerStopped: 0, agentAsked: 1, replyEnded: 40 });
    nothing.unanswered = 'no-reply';
    ledger.add(nothing, 1);
    const failed = turn({ callerStopped: 1000, agentAsked: 1001, replyEnded: 1040, ttsAsked: 1041 });
    failed.unanswered = 'failed';
    ledger.add(failed, 3);
    assert.deepEqual(ledger.record().turns.map((t) => t.unanswered), ['no-reply', 'failed']);
  });

  it('a turn with no words (not transcribed) takes its place in the numbering without a transcript line', () => {
    const ledger = new CallLedger();
    const lines = [
      { role: 'agent' as const, text: 'Hello.', at: 'a' },
      { role: 'caller' as const, text: 'Hi.', at: 'b' },
      { role: 'agent' as const, text: 'How can I help?', at: 'c' },
      { role: 'caller' as const, text: 'My order.', at: 'd' },
      { role: 'agent' as const, text: 'Sure.', at: 'e' },
    ];
    ledger.add(turn({ callerStopped: 0, firstFrameSent: 10 }), 1);
    const mumble = turn({ callerStopped: 1000 });
    mumble.unanswered = 'not-transcribed';
    ledger.add(mumble, 3); // the transcript's length when it ended: the next line is the next turn's
    ledger.add(turn({ callerStopped: 2000, firstFrameSent: 2010 }), 3);
    assert.deepEqual(ledger.record().turns.map((t) => [t.turn, t.unanswered]), [[1, null], [2, 'not-transcribed'], [3, null]]);
    assert.deepEqual(ledger.transcript(lines).map((l) => l.turn), [0, 1, 1, 3, 3]);
  });

  it('summarizes caller turns: nearest-rank p50 and p95, null without any reply', () => {
    const ledger = new CallLedger();
    [100, 20, 40, 80, 60].forEach((latency, i) => ledger.add(turn({ callerStopped: i * 1000, agentAsked: i * 1000, replyEnded: i * 1000 + latency - 1, firstFrameSent: i * 1000 + latency }), i));
    const summary = summarize(ledger.record(), 42);
    assert.deepEqual(summary, { durationSeconds: 42, turns: 5, turnLatencyMs: { p50: 60, p95: 100 }, switchboardAddedMs: { p95: 1 } });
    assert.deepEqual(summarize(null, 3), { durationSeconds: 3, turns: 0, turnLatencyMs: null, switchboardAddedMs: null });
  });

  it('numbers transcript lines by turn and marks the reply a caller spoke over', () => {
    const ledger = new CallLedger();
    const lines = [
      { role: 'agent' as const, text: 'Hello.', at: 'a' },
      { role: 'caller' as const, text: 'Tell me a story.', at: 'b' },
      { role: 'agent' as const, text: 'Once upon a time…', at: 'c' },
      { role: 'caller' as const, text: 'Stop.', at: 'd' },
      { role: 'agent' as const, text: 'Sure.', at: 'e' },
    ];
    const story = turn({ callerStopped: 0 });
    story.bargeIns.push({ at: T0 + 1500, stopMs: 0.2 });
    ledger.add(story, 1);
    ledger.add(turn({ callerStopped: 2000 }), 3);
    assert.deepEqual(
      ledger.transcript(lines).map((l) => [l.turn, l.role, l.interrupted]),
      [
        [0, 'agent', false],
        [1, 'caller', false],
        [1, 'agent', true],
        [2, 'caller', false],
        [2, 'agent', false],
      ],
    );
    assert.deepEqual(ledger.record().turns[0]!.bargeIns, [{ atMs: 1500, stopMs: 0.2 }]);
    assert.equal(ledger.close(), true);
    assert.equal(ledger.close(), false, 'closed once: the ledger is written once');
  });
});
