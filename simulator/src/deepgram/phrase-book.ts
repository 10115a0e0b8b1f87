import { MS_PER_CHARACTER, synthesizeSpeech } from '../audio.js';
import { FRAME_MS, levelsOf, speechEnvelope, type RawEncoding } from './audio-levels.js';

/** Phrases kept for recognition; the oldest registered is forgotten first. */
const PHRASE_LIMIT = 256;
/** How alike two envelopes must be (Pearson correlation of dB levels) to be the same phrase. */
export const MATCH_THRESHOLD = 0.75;
/** How much an utterance's length may differ from the phrase's: 10 %, and at least 2 frames. */
const LENGTH_TOLERANCE = 0.1;

/** A phrase recognised in audio, and how sure the match is (0..1). */
export interface PhraseMatch {
  readonly text: string;
  readonly confidence: number;
}

/**
 * The phrases the simulator's callers may say. The simulator's speech is synthetic (tones shaped
 * like speech, see audio.ts), so the transcriber recognises an utterance by comparing its loudness
 * envelope, frame by frame, with the envelope `synthesizeSpeech` gives each registered phrase at
 * the stream's sample rate and encoding: the best-correlated phrase of about the same length wins.
 */
export class PhraseBook {
  readonly #phrases = new Map<string, Map<string, readonly number[]>>();

  /** Makes `text` recognisable; registering it again keeps it and makes it the most recent. */
  register(text: string): void {
    const phrase = text.trim();
    if (phrase === '') return;
    const envelopes = this.#phrases.get(phrase) ?? new Map<string, readonly number[]>();
    this.#phrases.delete(phrase);
    this.#phrases.set(phrase, envelopes);
    if (this.#phrases.size > PHRASE_LIMIT) this.#phrases.delete(this.#phrases.keys().next().value as string);
  }

  /** Registered phrases, oldest first. */
  list(): string[] {
    return [...this.#phrases.keys()];
  }

  clear(): void {
    this.#phrases.clear();
  }

  /** The phrase whose synthetic speech best matches a whole utterance's envelope, if any is close enough. */
  match(envelope: readonly number[], encoding: RawEncoding, sampleRate: number): PhraseMatch | undefined {
    return this.#best(envelope, encoding, sampleRate, (phrase) => (withinLength(envelope.length, phrase.length) ? phrase : undefined));
  }

  /**
   * What has been said so far of an utterance still in progress: the best phrase whose opening
   * matches the envelope heard, cut to the whole words spoken in that time.
   */
  prefix(envelope: readonly number[], encoding: RawEncoding, sampleRate: number): PhraseMatch | undefined {
    const hit = this.#best(envelope, encoding, sampleRate, (phrase) => (phrase.length >= envelope.length ? phrase.slice(0, envelope.length) : undefined));
    if (!hit) return undefined;
    const characters = Math.floor((envelope.length * FRAME_MS) / MS_PER_CHARACTER);
    const spoken = [...hit.text].slice(0, characters).join('');
    const whole = [...hit.text].length === characters ? spoken : spoken.slice(0, Math.max(0, spoken.lastIndexOf(' ')));
    return whole.trim() === '' ? undefined : { text: whole.trim(), confidence: hit.confidence };
  }

  #best(
    envelope: readonly number[],
    encoding: RawEncoding,
    sampleRate: number,
    comparable: (phrase: readonly number[]) => readonly number[] | undefined,
  ): PhraseMatch | undefined {
    if (envelope.length < 2) return undefined;
    let best: PhraseMatch | undefined;
    // Newest first, so of two phrases that sound the same the one registered last wins.
    for (const text of [...this.#phrases.keys()].reverse()) {
      const candidate = comparable(this.#envelopeOf(text, encoding, sampleRate));
      if (!candidate) continue;
      const score = correlation(envelope, candidate);
      if (score >= MATCH_THRESHOLD && (!best || score > best.confidence)) best = { text, confidence: Math.min(1, Math.round(score * 1000) / 1000) };
    }
    return best;
  }

  #envelopeOf(text: string, encoding: RawEncoding, sampleRate: number): readonly number[] {
    const envelopes = this.#phrases.get(text)!;
    const key = `${encoding}/${sampleRate}`;
    let envelope = envelopes.get(key);
    if (!envelope) {
      envelope = speechEnvelope(levelsOf(synthesizeSpeech(text, sampleRate), encoding, sampleRate));
      envelopes.set(key, envelope);
    }
    return envelope;
  }
}

function withinLength(heard: number, phrase: number): boolean {
  return Math.abs(heard - phrase) <= Math.max(2, phrase * LENGTH_TOLERANCE);
}

/** Pearson correlation of `a` with `b` stretched to a's length (linear interpolation). */
export function correlation(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  if (n < 2 || b.length < 2) return 0;
  const stretched = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = (i * (b.length - 1)) / (n - 1);
    const lo = Math.floor(x);
    const hi = Math.min(b.length - 1, lo + 1);
    stretched[i] = b[lo]! + (b[hi]! - b[lo]!) * (x - lo);
  }
  let meanA = 0;
  let meanB = 0;
  for (let i = 0; i < n; i++) {
    meanA += a[i]!;
    meanB += stretched[i]!;
  }
  meanA /= n;
  meanB /= n;
  let num = 0;
  let varA = 0;
  let varB = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i]! - meanA;
    const db = stretched[i]! - meanB;
    num += da * db;
    varA += da * da;
    varB += db * db;
  }
  return varA === 0 || varB === 0 ? 0 : num / Math.sqrt(varA * varB);
}
