import { performance } from 'node:perf_hooks';
import type { CallLine } from '../protocol/operations.js';
import type { CallLedgerRecord, CallSummary, LedgerTurn, Offsets, StampName, Stamps, TranscriptLine, TurnComponents, UnansweredReason } from '../protocol/call-record.js';

export type { CallLedgerRecord, CallSummary, LedgerTurn, Offsets, StampName, Stamps, TranscriptLine, TurnComponents, UnansweredReason } from '../protocol/call-record.js';

/** Wall-clock ms with sub-ms precision, read from the monotonic clock (so stamps of one call never go backwards). */
export function clock(): number {
  return performance.timeOrigin + performance.now();
}

/** One turn's stamps as they are taken: cheap, in memory, set once each. */
export class TurnTimer {
  readonly stamps: Stamps = {};
  /** Stream: silence our endpointing waited before it decided (ms of call audio). */
  endpointingMs: number | undefined;
  readonly bargeIns: { at: number; stopMs: number | null }[] = [];
  /** Why the turn got no reply, when the call knows; a turn left without a reply when the call ended is `call-ended`. */
  unanswered: UnansweredReason | undefined;

  mark(name: StampName, at: number = clock()): void {
    if (this.stamps[name] === undefined) this.stamps[name] = at;
  }
}

const round = (ms: number): number => Math.round(ms * 10) / 10;
const span = (from: number | undefined, to: number | undefined): number | null => (from === undefined || to === undefined ? null : Math.max(0, round(to - from)));

/**
 * The latency ledger of one live call, kept on the call in memory: stamps are taken at turn
 * boundaries only (never per frame) and written with the call when it ends.
 */
export class CallLedger {
  readonly greeting = new TurnTimer();
  /** The recording announcement the call opened with (all-party consent), once said. */
  recordingAnnouncement: string | undefined;
  readonly #turns: { timer: TurnTimer; line: number }[] = [];
  #closed = false;

  /** Closes the ledger when the call ends; true the first time only, so it is written once. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }

  /** A caller turn the dialogue took; `line` is its caller line's index in the transcript. */
  add(timer: TurnTimer, line: number): void {
    this.#turns.push({ timer, line });
  }

  /** The ledger as stored: offsets from each turn's start, and where its time went. */
  record(): CallLedgerRecord {
    const greeting = this.greeting.stamps.callerStopped === undefined ? null : entry(0, this.greeting);
    const turns = this.#turns.map(({ timer }, i) => entry(i + 1, timer));
    return this.recordingAnnouncement === undefined ? { greeting, turns } : { greeting, turns, recordingAnnouncement: this.recordingAnnouncement };
  }

  /** The transcript with each line's turn, and the interrupted replies marked. */
  transcript(lines: readonly CallLine[]): TranscriptLine[] {
    const starts = this.#turns.map((t) => t.line);
    const interruptedTurns = new Set([this.greeting, ...this.#turns.map((t) => t.timer)].flatMap((timer, turn) => (timer.bargeIns.length > 0 ? [turn] : [])));
    const out = lines.map((line, index) => {
      const turn = starts.filter((start) => start <= index).length;
      return { role: line.role, text: line.text, at: line.at, turn, interrupted: false };
    });
    // The last agent line of an interrupted turn is the reply the caller spoke over.
    for (const turn of interruptedTurns) {
      const last = out.findLastIndex((l) => l.turn === turn && l.role === 'agent');
      if (last >= 0) out[last] = { ...out[last]!, interrupted: true };
    }
    return out;
  }
}

/** One turn's ledger entry (turn 0 is the greeting). */
export function entry(turn: number, timer: TurnTimer): LedgerTurn {
  const s = timer.stamps;
  const start = s.callerStopped ?? s.agentAsked ?? s.ttsAsked ?? s.firstFrameSent ?? clock();
  const at = (stamp: number | undefined) => (stamp === undefined ? null : round(stamp - start));
  const transcriptionMs = span(s.callerStopped, s.transcriptReady);
  const agentMs = span(s.agentAsked, s.replyEnded);
  const ttsMs = span(s.ttsAsked, s.ttsFirstAudio);
  const latencyMs = span(start, s.firstFrameSent);
  const switchboardMs = latencyMs === null ? null : Math.max(0, round(latencyMs - (transcriptionMs ?? 0) - (agentMs ?? 0) - (ttsMs ?? 0)));
  return {
    turn,
    at: new Date(start).toISOString(),
    endpointingMs: timer.endpointingMs === undefined ? null : round(timer.endpointingMs),
    stamps: {
      transcriptReady: at(s.transcriptReady),
      agentAsked: at(s.agentAsked),
      replyBegan: at(s.replyBegan),
      replyEnded: at(s.replyEnded),
      ttsAsked: at(s.ttsAsked),
      ttsFirstAudio: at(s.ttsFirstAudio),
      firstFrameSent: at(s.firstFrameSent),
    },
    components: { transcriptionMs, agentMs, ttsMs, switchboardMs },
    latencyMs,
    unanswered: s.firstFrameSent === undefined ? (timer.unanswered ?? 'call-ended') : null,
    bargeIns: timer.bargeIns.map((b) => ({ atMs: round(b.at - start), stopMs: b.stopMs === null ? null : round(b.stopMs) })),
  };
}

/** The call's summary from its stored ledger (caller turns only; the greeting is not a turn). */
export function summarize(ledger: CallLedgerRecord | null, durationSeconds: number): CallSummary {
  const turns = ledger?.turns ?? [];
  const latencies = turns.flatMap((t) => (t.latencyMs === null ? [] : [t.latencyMs]));
  const added = turns.flatMap((t) => (t.components.switchboardMs === null ? [] : [t.components.switchboardMs]));
  return {
    durationSeconds,
    turns: turns.length,
    turnLatencyMs: latencies.length ? { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) } : null,
    switchboardAddedMs: added.length ? { p95: percentile(added, 0.95) } : null,
  };
}

/** Nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}
