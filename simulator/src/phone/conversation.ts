import { performance } from 'node:perf_hooks';
import type { AgentReply, CallRecording, CallTurn } from './phone-types.js';

/** An agent reply whose received audio is kept as chunks and joined only when read. */
class RecordedReply implements AgentReply {
  text = '';
  tokens = 0;
  audioMs = 0;
  speechMs = 0;
  latencyMs?: number;
  firstAt?: Date;
  interrupted = false;
  complete = false;
  /** Performance time of the latest output: a number per media message, a Date only when read. */
  lastPerf: number | undefined;
  #chunks: Buffer[] = [];
  #joined: Buffer | undefined;

  get lastAt(): Date | undefined {
    return this.lastPerf === undefined ? undefined : new Date(performance.timeOrigin + this.lastPerf);
  }

  /** The μ-law audio received in this turn (left out of JSON). */
  get audio(): Buffer {
    this.#joined ??= Buffer.concat(this.#chunks);
    return this.#joined;
  }

  keep(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#joined = undefined;
  }

  toJSON(): Omit<AgentReply, 'audio'> {
    const { text, tokens, audioMs, speechMs, latencyMs, firstAt, lastAt, interrupted, complete } = this;
    return { text, tokens, audioMs, speechMs, latencyMs, firstAt, lastAt, interrupted, complete };
  }
}

/** What the agent sent: relay text tokens or stream audio. */
export interface AgentOutput {
  text?: string;
  last?: boolean;
  /** μ-law bytes received (stream); only valid during the call, copied when kept. */
  audio?: Buffer;
  speechMs?: number;
}

interface Waiter {
  test: (now: number) => boolean;
  deadline: number;
  resolve: (met: boolean) => void;
}

/**
 * The turns of a call as the phone lives them: the caller's utterances, the agent's replies, and
 * the waits between them. Agent output that arrives while the caller is still speaking belongs to
 * the reply it interrupts; anything after the caller finished answers the new utterance.
 */
export class Conversation {
  readonly recording: CallRecording;
  /** Performance time of the last agent output. */
  lastAgentAt = Number.NEGATIVE_INFINITY;
  /** Performance time the current connection opened. */
  connectedAt = 0;
  #speaking: CallTurn | undefined;
  readonly #endedAt = new Map<number, number>();
  readonly #firstAt = new Map<number, number>();
  #waiters: Waiter[] = [];
  #audioBudget: number;

  constructor(recording: CallRecording, recordAudioMs: number) {
    this.recording = recording;
    this.#audioBudget = Math.max(0, Math.round(recordAudioMs * 8));
    if (recording.turns.length === 0) recording.turns.push(Conversation.#turn(0));
  }

  static #turn(index: number): CallTurn {
    return { index, agent: new RecordedReply(), timedOut: false };
  }

  /** The latest turn (the one the caller last spoke in, or the greeting). */
  get current(): CallTurn {
    return this.recording.turns.at(-1)!;
  }

  /** The caller is in the middle of an utterance. */
  get callerSpeaking(): boolean {
    return this.#speaking !== undefined;
  }

  /** Performance time the agent first answered turn `index`, if it has. */
  firstReplyAt(index: number): number | undefined {
    return this.#firstAt.get(index);
  }

  /** The caller starts an utterance (or keys digits): a new turn. */
  callerStarts(part: { text?: string; digits?: string; bargeIn: boolean }): CallTurn {
    const turn = Conversation.#turn(this.recording.turns.length);
    turn.caller = { ...part, startedAt: new Date() };
    this.recording.turns.push(turn);
    this.#speaking = turn;
    return turn;
  }

  callerEnds(turn: CallTurn): void {
    if (turn.caller) turn.caller.endedAt = new Date();
    this.#endedAt.set(turn.index, performance.now());
    if (this.#speaking === turn) this.#speaking = undefined;
  }

  /** Records agent output on the turn it belongs to. */
  agentOutput(out: AgentOutput, now: number): CallTurn {
    const turns = this.recording.turns;
    const turn = this.#speaking && turns.length > 1 ? turns[turns.length - 2]! : this.current;
    const reply = turn.agent as RecordedReply;
    if (!reply.firstAt) {
      reply.firstAt = new Date();
      this.#firstAt.set(turn.index, now);
      const since = turn.caller ? this.#endedAt.get(turn.index) : this.connectedAt;
      if (since !== undefined) reply.latencyMs = Math.round(now - since);
    }
    reply.lastPerf = now;
    if (out.text !== undefined) {
      reply.text += out.text;
      reply.tokens++;
    }
    if (out.last) reply.complete = true;
    if (out.audio) {
      reply.audioMs += out.audio.length / 8;
      reply.speechMs += out.speechMs ?? 0;
      if (this.#audioBudget > 0) {
        const kept = out.audio.length <= this.#audioBudget ? out.audio : out.audio.subarray(0, this.#audioBudget);
        this.#audioBudget -= kept.length;
        reply.keep(Buffer.from(kept));
      }
    }
    this.lastAgentAt = now;
    return turn;
  }

  /** Resolves true once `test` holds (checked every tick), false after `timeoutMs` or on cancel. */
  waitFor(test: (now: number) => boolean, timeoutMs: number): Promise<boolean> {
    const now = performance.now();
    if (test(now)) return Promise.resolve(true);
    return new Promise((resolve) => this.#waiters.push({ test, deadline: now + timeoutMs, resolve }));
  }

  /** Checks the waiters; the leg calls it on every clock tick. */
  poll(now: number): void {
    if (this.#waiters.length === 0) return;
    const pending: Waiter[] = [];
    for (const w of this.#waiters) {
      if (w.test(now)) w.resolve(true);
      else if (now >= w.deadline) w.resolve(false);
      else pending.push(w);
    }
    // Continuations run as microtasks after this returns, so nothing is added during the loop.
    this.#waiters = pending;
  }

  /** Ends every wait (the connection closed). */
  cancelWaits(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.resolve(false);
  }
}
