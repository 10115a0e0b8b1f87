// Micro-benchmark of what a call's latency ledger and transcript cost the server, turned into CPU per
// call-second at a given turn rate. Turning the ledger off in the server would need a mode flag in
// domain code, so its work is measured here instead, with the server's own functions:
//   per turn:     the turn's timer and its eight stamps, the endpointing figure, the ledger entry, the
//                 caller's and the agent's transcript lines, and the entry the turn's metrics are read
//                 from (VoiceService.turnMeasured);
//   per call end: the stored ledger and transcript built (CallLedger.record, .transcript), serialised,
//                 and written to the call's row (sqlite, synchronous=FULL, one commit per call).
// CPU is process.cpuUsage(): every thread of this process, the store's included.
// Run: node --conditions=switchboard-source --import tsx test/bench/voice-ledger.ts [turns per call-second] [turns per call]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallLine } from '../../runtime/src/protocol/operations.js';
import { openStore } from '../../runtime/src/store/store.js';
import { CallLedger, TurnTimer, entry, type StampName } from '../../runtime/src/voice/call-ledger.js';

const TURN_RATE = Number(process.argv[2] ?? 0.2);
const TURNS = Number(process.argv[3] ?? 12);
const CALLS = 500;
const ROUNDS = 7;
const STAMPS: readonly StampName[] = ['transcriptReady', 'agentAsked', 'replyBegan', 'replyEnded', 'ttsAsked', 'ttsFirstAudio', 'firstFrameSent'];

interface Call {
  readonly ledger: CallLedger;
  readonly lines: CallLine[];
}

let kept = 0;

/** One turn's ledger and transcript work, as a stream call does it. */
function turn(call: Call): void {
  const timer = new TurnTimer();
  timer.mark('callerStopped');
  timer.endpointingMs = 700;
  call.lines.push({ role: 'caller', text: 'I have a question about my order', at: new Date().toISOString() });
  call.ledger.add(timer, call.lines.length - 1);
  for (const name of STAMPS) timer.mark(name);
  call.lines.push({ role: 'agent', text: 'Sure, I can help with that.', at: new Date().toISOString() });
  kept += entry(0, timer).components.switchboardMs ?? 0;
}

function newCall(): Call {
  const call = { ledger: new CallLedger(), lines: [] as CallLine[] };
  call.ledger.greeting.mark('callerStopped');
  for (const name of ['ttsAsked', 'ttsFirstAudio', 'firstFrameSent'] as const) call.ledger.greeting.mark(name);
  call.lines.push({ role: 'agent', text: 'Hello, this is the voice bench. How can I help?', at: new Date().toISOString() });
  return call;
}

function median(values: number[]): number {
  return values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'sb-voice-ledger-'));
try {
  const store = await openStore({ dataDir: dir });
  const now = new Date().toISOString();
  // The calls' rows, as the voice webhook leaves them, so each end updates a real row.
  const sessions = Array.from({ length: CALLS * (ROUNDS + 1) }, (_, i) => `sess_${i}`);
  for (let i = 0; i < sessions.length; i += 500) {
    await store.db.executeAll(
      sessions.slice(i, i + 500).map((sessionId, j) =>
        store.calls.insertStatement({ callSid: `CA${String(i + j).padStart(32, '0')}`, sessionId, agentId: 'bench', direction: 'inbound', mode: 'stream', from: '+14155550100', to: '+12025550100', status: 'in-progress', durationSeconds: 0, cost: null, createdAt: now, updatedAt: now }),
      ),
    );
  }

  const perTurn: number[] = [];
  const perEnd: number[] = [];
  let session = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const calls = Array.from({ length: CALLS }, newCall);
    const turns = process.cpuUsage();
    for (let t = 0; t < TURNS; t++) for (const call of calls) turn(call);
    const turnCpu = process.cpuUsage(turns);
    const ends = process.cpuUsage();
    // Calls end one by one, each its own commit, as the voice service writes them.
    for (const call of calls) {
      call.ledger.close();
      const transcript = call.ledger.transcript(call.lines);
      await store.db.executeAll([store.calls.saveConversationStatement(sessions[session++]!, new Date().toISOString(), call.ledger.record(), transcript)]);
    }
    const endCpu = process.cpuUsage(ends);
    if (round === 0) continue; // warm-up
    perTurn.push((turnCpu.user + turnCpu.system) / (CALLS * TURNS));
    perEnd.push((endCpu.user + endCpu.system) / CALLS);
  }
  await store.close();
  const turnUs = median(perTurn);
  const endUs = median(perEnd);
  const callSeconds = TURNS / TURN_RATE;
  const perCallSecondMs = (TURNS * turnUs + endUs) / callSeconds / 1000;
  console.log(`ledger and transcript, ${CALLS} calls of ${TURNS} turns (median of ${ROUNDS} rounds):`);
  console.log(`  per turn (timer, stamps, entry, transcript lines, metrics entry): ${turnUs.toFixed(2)} µs CPU`);
  console.log(`  per call end (record, transcript, JSON, sqlite commit):           ${endUs.toFixed(1)} µs CPU`);
  console.log(`  at ${TURN_RATE} turns per call-second (${callSeconds.toFixed(0)} s calls): ${perCallSecondMs.toFixed(4)} ms CPU per call-second (target ≤ 0.05)`);
  console.log(`  of which the turns ${((TURNS * turnUs) / callSeconds / 1000).toFixed(4)} ms, the call's end ${(endUs / callSeconds / 1000).toFixed(4)} ms (${kept > 0 ? 'stamps read' : '-'})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
