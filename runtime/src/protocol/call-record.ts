import type { CallLine } from './operations.js';

/** What a call's latency ledger and transcript look like, stored and served (the calls API, the call's end event). */

/** The moments of one turn, in wall-clock ms; each is set once, by whichever step reaches it first. */
export interface Stamps {
  /** Stream: our endpointing decided the utterance ended; relay: the provider's prompt arrived. The greeting: the media stream started. */
  callerStopped?: number;
  /** Stream: speech-to-text returned the final transcript. */
  transcriptReady?: number;
  agentAsked?: number;
  replyBegan?: number;
  replyEnded?: number;
  /** Stream: text-to-speech was asked for the reply's audio, and returned it. */
  ttsAsked?: number;
  ttsFirstAudio?: number;
  /** The reply's first frame (stream) or text message (relay) left for the caller. */
  firstFrameSent?: number;
}

export type StampName = keyof Stamps;

/** A stamp as stored and served: ms after the turn's start (0.1 ms), null when the turn had no such step. */
export type Offsets = Record<Exclude<StampName, 'callerStopped'>, number | null>;

/** Where a turn's time went, in ms. Provider time is speech-to-text and text-to-speech; agent time is the agent's reply; the rest is Switchboard's. */
export interface TurnComponents {
  readonly transcriptionMs: number | null;
  readonly agentMs: number | null;
  readonly ttsMs: number | null;
  readonly switchboardMs: number | null;
}

/**
 * Why a turn got no reply: the call ended before the reply's first frame (or text) left, the agent
 * answered with nothing to say, saying the reply failed (text-to-speech, for one), or (stream) our
 * endpointing heard an utterance that speech-to-text gave no words for, so nobody was asked.
 */
export type UnansweredReason = 'call-ended' | 'no-reply' | 'failed' | 'not-transcribed';

/** One turn of the ledger (the greeting is turn 0). */
export interface LedgerTurn {
  readonly turn: number;
  /** When the turn started: the caller stopped speaking (the greeting: the media stream started). */
  readonly at: string;
  readonly endpointingMs: number | null;
  readonly stamps: Offsets;
  readonly components: TurnComponents;
  /** From the turn's start to the reply's first frame; null when nothing was said back. */
  readonly latencyMs: number | null;
  /** Null when the turn was answered (`latencyMs` is set); else why it was not. */
  readonly unanswered: UnansweredReason | null;
  /** The caller spoke over this turn's reply: when (ms after the turn's start) and how long the reply took to stop (null: the provider stopped it). */
  readonly bargeIns: readonly { readonly atMs: number; readonly stopMs: number | null }[];
}

/** A call's ledger: the greeting, then one entry per caller turn. */
export interface CallLedgerRecord {
  readonly greeting: LedgerTurn | null;
  readonly turns: readonly LedgerTurn[];
  /** The recording announcement the call opened with, where the other party's place asks every party's consent. */
  readonly recordingAnnouncement?: string;
}

/** One line of the stored transcript. */
export interface TranscriptLine extends CallLine {
  readonly turn: number;
  /** The caller spoke over this line before it was fully played. */
  readonly interrupted: boolean;
}

/** The call's end in numbers, as the call's end event and the calls API give it. */
export interface CallSummary {
  readonly durationSeconds: number;
  readonly turns: number;
  readonly turnLatencyMs: { readonly p50: number; readonly p95: number } | null;
  readonly switchboardAddedMs: { readonly p95: number } | null;
}
