import { createHash, randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { FrameMeter, type RawEncoding } from './audio-levels.js';
import type { PhraseBook, PhraseMatch } from './phrase-book.js';
import { UtteranceSegmenter, type HeardUtterance } from './utterance-segmenter.js';

/** Deepgram closes a stream that has received neither audio nor a message for this long (NET-0001). */
export const IDLE_TIMEOUT_MS = 10_000;

const MODEL_UUID = '1abfe86b-e047-4eed-858a-35e5625b41ee';

/** The query parameters of `/v1/listen` the simulator acts on. */
export interface ListenOptions {
  readonly encoding: RawEncoding;
  readonly sampleRate: number;
  readonly model: string;
  readonly language: string;
  readonly interimResults: boolean;
  /** ms of silence that ends an utterance (`speech_final`), or false for none; Deepgram's default is 10. */
  readonly endpointing: number | false;
  readonly utteranceEndMs?: number;
  readonly vadEvents: boolean;
  /** `punctuate` or `smart_format`: transcripts keep case and punctuation; else lower case, bare words. */
  readonly punctuate: boolean;
}

/** One transcript a session sent, as tests read it back. */
export interface SentTranscript {
  readonly transcript: string;
  readonly isFinal: boolean;
  readonly speechFinal: boolean;
  readonly fromFinalize: boolean;
  readonly start: number;
  readonly duration: number;
}

/** What a live transcription session did, kept for `sim.deepgram.sessions()`. */
export interface ListenSessionRecord {
  readonly requestId: string;
  readonly options: ListenOptions;
  readonly openedAt: Date;
  closedAt?: Date;
  closeCode?: number;
  audioBytes: number;
  /** Binary messages that carried the audio. */
  audioMessages: number;
  readonly transcripts: SentTranscript[];
  /** Control messages received, in order: Finalize, KeepAlive, CloseStream. */
  readonly controls: string[];
}

/**
 * One `/v1/listen` WebSocket: measures the audio it receives, finds utterances by energy, names
 * each with the registered phrase its envelope matches, and answers in Deepgram's message shapes
 * (`Results`, `SpeechStarted`, `UtteranceEnd`, `Metadata`).
 */
export class ListenSession {
  readonly record: ListenSessionRecord;
  readonly #socket: WebSocket;
  readonly #phrases: PhraseBook;
  readonly #meter: FrameMeter;
  readonly #segmenter: UtteranceSegmenter;
  readonly #sha256 = createHash('sha256');
  #audioSinceFinal = 0;
  #idle: NodeJS.Timeout | undefined;
  #closing = false;

  constructor(socket: WebSocket, options: ListenOptions, phrases: PhraseBook) {
    this.#socket = socket;
    this.#phrases = phrases;
    this.record = { requestId: randomUUID(), options, openedAt: new Date(), audioBytes: 0, audioMessages: 0, transcripts: [], controls: [] };
    this.#meter = new FrameMeter(options.encoding, options.sampleRate);
    this.#segmenter = new UtteranceSegmenter(
      {
        speechStarted: (at) => {
          if (options.vadEvents) this.#send({ type: 'SpeechStarted', channel: [0], timestamp: at });
        },
        progress: (utterance) => {
          if (options.interimResults) this.#results(utterance, this.#phrases.prefix(utterance.envelope, options.encoding, options.sampleRate), { isFinal: false });
        },
        ended: (utterance, reason) => this.#final(utterance, { speechFinal: reason === 'pause' }),
        utteranceEnd: (lastWordEnd) => this.#send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastWordEnd }),
      },
      { endpointingMs: options.endpointing, ...(options.utteranceEndMs !== undefined ? { utteranceEndMs: options.utteranceEndMs } : {}) },
    );
    socket.on('message', (data, isBinary) => this.#receive(data as Buffer | Buffer[], isBinary));
    socket.on('close', (code) => {
      clearTimeout(this.#idle);
      this.record.closedAt = new Date();
      this.record.closeCode = code;
    });
    this.#armIdle();
  }

  #receive(data: Buffer | Buffer[], isBinary: boolean): void {
    if (this.#closing) return;
    this.#armIdle();
    const bytes = Array.isArray(data) ? Buffer.concat(data) : data;
    if (isBinary) {
      this.#audio(bytes);
      return;
    }
    let message: { type?: unknown };
    try {
      message = JSON.parse(bytes.toString('utf8')) as { type?: unknown };
    } catch {
      this.#socket.close(1008, 'DATA-0000: text frames must be JSON control messages');
      return;
    }
    const type = typeof message?.type === 'string' ? message.type : '';
    this.record.controls.push(type);
    switch (type) {
      case 'KeepAlive':
        return;
      case 'Finalize':
        this.#finalize();
        return;
      case 'CloseStream':
        this.#closeStream();
        return;
      default:
        this.#socket.close(1008, `DATA-0000: unknown control message type "${type}"`);
    }
  }

  #audio(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.record.audioBytes += bytes.length;
    this.record.audioMessages++;
    this.#audioSinceFinal += bytes.length;
    this.#sha256.update(bytes);
    this.#segmenter.frames(this.#meter.push(bytes));
  }

  /**
   * Flushes what is buffered: the utterance in progress becomes final with `from_finalize: true`.
   * Like Deepgram, nothing is answered when no audio arrived since the last final result.
   */
  #finalize(): void {
    if (this.#audioSinceFinal === 0) return;
    this.#segmenter.frames(this.#meter.flush());
    const cut = this.#segmenter.cut();
    const at = this.#segmenter.position;
    this.#final(cut ?? { start: at, duration: 0, envelope: [] }, { speechFinal: false, fromFinalize: true });
  }

  /** Finishes the utterance in progress, sends the summary Metadata, and closes normally. */
  #closeStream(): void {
    this.#segmenter.frames(this.#meter.flush());
    const cut = this.#segmenter.cut();
    if (cut) this.#final(cut, { speechFinal: false });
    this.#send({
      type: 'Metadata',
      transaction_key: 'deprecated',
      request_id: this.record.requestId,
      sha256: this.#sha256.digest('hex'),
      created: this.record.openedAt.toISOString(),
      duration: this.#segmenter.position,
      channels: 1,
      models: [MODEL_UUID],
      model_info: { [MODEL_UUID]: { name: `general-${this.record.options.model}`, version: '2025-01-01.0', arch: this.record.options.model } },
    });
    this.#closing = true;
    this.#socket.close(1000);
  }

  #final(utterance: HeardUtterance, flags: { speechFinal: boolean; fromFinalize?: boolean }): void {
    const { encoding, sampleRate } = this.record.options;
    const match = utterance.envelope.length > 0 ? this.#phrases.match(utterance.envelope, encoding, sampleRate) : undefined;
    this.#audioSinceFinal = 0;
    this.#results(utterance, match, { isFinal: true, ...flags });
  }

  #results(utterance: HeardUtterance, match: PhraseMatch | undefined, flags: { isFinal: boolean; speechFinal?: boolean; fromFinalize?: boolean }): void {
    const { punctuate, model } = this.record.options;
    const words = match ? wordsOf(match, utterance, punctuate) : [];
    const transcript = match ? (punctuate ? match.text : words.map((w) => w.word).join(' ')) : '';
    const entry: SentTranscript = {
      transcript,
      isFinal: flags.isFinal,
      speechFinal: flags.speechFinal ?? false,
      fromFinalize: flags.fromFinalize ?? false,
      start: utterance.start,
      duration: utterance.duration,
    };
    this.record.transcripts.push(entry);
    this.#send({
      type: 'Results',
      channel_index: [0, 1],
      duration: round3(utterance.duration),
      start: round3(utterance.start),
      is_final: entry.isFinal,
      speech_final: entry.speechFinal,
      from_finalize: entry.fromFinalize,
      channel: { alternatives: [{ transcript, confidence: match?.confidence ?? 0, words }] },
      metadata: { request_id: this.record.requestId, model_info: { name: `general-${model}`, version: '2025-01-01.0', arch: model }, model_uuid: MODEL_UUID },
    });
  }

  #send(message: object): void {
    if (this.#socket.readyState === this.#socket.OPEN) this.#socket.send(JSON.stringify(message));
  }

  #armIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.#socket.close(1011, 'NET-0001: no audio or message received within the timeout window'), IDLE_TIMEOUT_MS);
    this.#idle.unref();
  }
}

interface Word {
  word: string;
  start: number;
  end: number;
  confidence: number;
  punctuated_word?: string;
}

/** The phrase's words, timed by where their characters fall in the utterance. */
function wordsOf(match: PhraseMatch, utterance: HeardUtterance, punctuate: boolean): Word[] {
  const characters = [...match.text].length || 1;
  const secondsPerCharacter = utterance.duration / characters;
  const words: Word[] = [];
  for (const m of match.text.matchAll(/\S+/g)) {
    const bare = m[0].toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, '');
    if (bare === '') continue;
    const offset = [...match.text.slice(0, m.index)].length;
    const word: Word = {
      word: bare,
      start: round3(utterance.start + offset * secondsPerCharacter),
      end: round3(utterance.start + (offset + [...m[0]].length) * secondsPerCharacter),
      confidence: match.confidence,
    };
    if (punctuate) word.punctuated_word = m[0];
    words.push(word);
  }
  return words;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
