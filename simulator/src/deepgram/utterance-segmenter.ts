import { FRAME_MS, SPEECH_RMS, toDb } from './audio-levels.js';

/**
 * Silence inside one phrase of the simulator's speech: a space is 60 ms and a comma or full stop
 * adds 60 ms more, so pauses shorter than this never end an utterance, whatever `endpointing` says.
 */
export const MIN_ENDPOINTING_MS = 250;
/** An utterance this long is cut into a final segment even without a pause, as Deepgram does. */
const MAX_UTTERANCE_MS = 30_000;

/** An utterance the segmenter heard: where it starts in the stream, and its speech envelope. */
export interface HeardUtterance {
  /** Start in the stream's audio, in seconds. */
  readonly start: number;
  /** From the first to the last speech frame, in seconds. */
  readonly duration: number;
  /** dB level of each 20 ms frame from the first speech frame to the last. */
  readonly envelope: readonly number[];
}

/** What the segmenter reports as frames come in. */
export interface SegmenterEvents {
  speechStarted(at: number): void;
  /** Called about once a second of an utterance in progress. */
  progress(utterance: HeardUtterance): void;
  /** The utterance ended: `pause` after silence of the endpointing length, `length` when cut at 30 s. */
  ended(utterance: HeardUtterance, reason: 'pause' | 'length'): void;
  /** No speech for `utteranceEndMs` after the last utterance. */
  utteranceEnd(lastWordEnd: number): void;
}

/**
 * Finds utterances in a stream by energy: an utterance starts at the first 20 ms frame above
 * -40 dBFS and ends after `endpointingMs` (at least {@link MIN_ENDPOINTING_MS}) of frames below it.
 * Time is the audio's own (frames received), not the wall clock.
 */
export class UtteranceSegmenter {
  readonly #events: SegmenterEvents;
  readonly #gapFrames: number;
  readonly #utteranceEndFrames: number | undefined;
  #frame = 0;
  #start = -1;
  #levels: number[] = [];
  #silence = 0;
  #lastSpeechEnd = -1;
  #utteranceEndSent = true;

  constructor(events: SegmenterEvents, options: { endpointingMs: number | false; utteranceEndMs?: number }) {
    this.#events = events;
    const gapMs = options.endpointingMs === false ? Infinity : Math.max(MIN_ENDPOINTING_MS, options.endpointingMs);
    this.#gapFrames = Math.ceil(gapMs / FRAME_MS);
    this.#utteranceEndFrames = options.utteranceEndMs === undefined ? undefined : Math.max(1, Math.ceil(options.utteranceEndMs / FRAME_MS));
  }

  /** Seconds of audio received so far. */
  get position(): number {
    return (this.#frame * FRAME_MS) / 1000;
  }

  get speaking(): boolean {
    return this.#start !== -1;
  }

  /** Feeds the levels of consecutive 20 ms frames. */
  frames(levels: readonly number[]): void {
    for (const level of levels) this.#frameLevel(level);
  }

  /** Ends the utterance in progress now (Finalize, CloseStream); undefined when there is none. */
  cut(): HeardUtterance | undefined {
    if (!this.speaking) return undefined;
    return this.#end();
  }

  #frameLevel(level: number): void {
    const speech = level >= SPEECH_RMS;
    if (!this.speaking) {
      if (speech) {
        this.#start = this.#frame;
        this.#levels = [toDb(level)];
        this.#silence = 0;
        this.#events.speechStarted(this.position);
      } else if (!this.#utteranceEndSent && this.#utteranceEndFrames !== undefined && this.#frame + 1 - this.#lastSpeechEnd >= this.#utteranceEndFrames) {
        this.#utteranceEndSent = true;
        this.#events.utteranceEnd((this.#lastSpeechEnd * FRAME_MS) / 1000);
      }
      this.#frame++;
      return;
    }
    this.#levels.push(toDb(level));
    this.#silence = speech ? 0 : this.#silence + 1;
    this.#frame++;
    if (this.#silence >= this.#gapFrames) {
      this.#events.ended(this.#end(), 'pause');
    } else if (this.#levels.length * FRAME_MS >= MAX_UTTERANCE_MS) {
      this.#events.ended(this.#end(), 'length');
    } else if (speech && this.#levels.length % (1000 / FRAME_MS) === 0) {
      this.#events.progress(this.#heard(this.#levels.length - this.#silence));
    }
  }

  #end(): HeardUtterance {
    const heard = this.#heard(this.#levels.length - this.#silence);
    this.#lastSpeechEnd = this.#start + heard.envelope.length;
    this.#utteranceEndSent = false;
    this.#start = -1;
    this.#levels = [];
    this.#silence = 0;
    return heard;
  }

  #heard(speechFrames: number): HeardUtterance {
    const envelope = this.#levels.slice(0, speechFrames);
    return { start: (this.#start * FRAME_MS) / 1000, duration: (envelope.length * FRAME_MS) / 1000, envelope };
  }
}
