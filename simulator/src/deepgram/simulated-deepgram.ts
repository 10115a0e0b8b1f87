import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { deepgramApi } from './deepgram-api.js';
import { deepgramOf, resetDeepgram } from './deepgram-state.js';
import type { ListenSessionRecord } from './listen-session.js';
import { deepgramLive } from './live-listen.js';

/** The simulated Deepgram as tests and the simulator phone see it. */
export interface SimulatedDeepgram {
  /**
   * Makes `text` recognisable: an utterance whose loudness envelope matches the simulator's
   * synthetic speech of `text` (`synthesizeSpeech`) is transcribed as `text`. Register before speaking.
   */
  registerPhrase(text: string): void;
  /** Registered phrases, oldest first (at most 256 are kept). */
  phrases(): string[];
  /** Live transcription sessions served, oldest first: options, audio received, transcripts sent. */
  sessions(): ListenSessionRecord[];
}

/** The simulated Deepgram of one simulator: its REST API, its WebSocket endpoint and its public face. */
export function simulatedDeepgram(state: SimulatorState): {
  api: ProviderApi;
  /** An `upgrade` listener for the simulator's server: serves `/deepgram/v1/listen`, refuses any other path with 404. */
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  facade: SimulatedDeepgram;
  reset(): void;
  close(): void;
} {
  const live = deepgramLive(state);
  const deepgram = deepgramOf(state);
  return {
    api: deepgramApi(state),
    upgrade(req, socket, head) {
      if (!live.handleUpgrade(req, socket, head)) socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    },
    facade: {
      registerPhrase: (text) => deepgram.phrases.register(text),
      phrases: () => deepgram.phrases.list(),
      sessions: () => deepgram.sessions.toArray(),
    },
    reset: () => resetDeepgram(state),
    close: () => live.close(),
  };
}
