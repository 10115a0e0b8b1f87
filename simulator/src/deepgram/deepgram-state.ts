import { randomUUID } from 'node:crypto';
import { RingBuffer } from '../ring-buffer.js';
import type { SimulatorState } from '../simulator-state.js';
import type { ListenSessionRecord } from './listen-session.js';
import { PhraseBook } from './phrase-book.js';

/** What the simulated Deepgram remembers: the phrases callers may say, and the sessions it served. */
export interface DeepgramState {
  readonly phrases: PhraseBook;
  readonly sessions: RingBuffer<ListenSessionRecord>;
  readonly projectId: string;
}

// Kept beside the shared state rather than in it, so Deepgram stays one folder.
const states = new WeakMap<SimulatorState, DeepgramState>();

/** The simulated Deepgram of one simulator. */
export function deepgramOf(state: SimulatorState): DeepgramState {
  let deepgram = states.get(state);
  if (!deepgram) {
    deepgram = { phrases: new PhraseBook(), sessions: new RingBuffer(Math.min(state.settings.recordLimit, 1000)), projectId: randomUUID() };
    states.set(state, deepgram);
  }
  return deepgram;
}

/**
 * Makes `text` recognisable by the simulated Deepgram of this simulator: call it before a
 * simulated caller speaks `text` with `synthesizeSpeech` (see README, "Deepgram transcription").
 */
export function registerSpokenPhrase(state: SimulatorState, text: string): void {
  deepgramOf(state).phrases.register(text);
}

/** Forgets phrases and sessions (`sim.reset()`). */
export function resetDeepgram(state: SimulatorState): void {
  const deepgram = deepgramOf(state);
  deepgram.phrases.clear();
  deepgram.sessions.clear();
}
