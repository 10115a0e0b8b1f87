import type { JsonSchema } from '@switchboard/sdk';

/** Settings of the Deepgram driver. */
export interface DeepgramSettings {
  readonly apiKey: string;
  /**
   * API origin override (http, https, ws or wss, with an optional path prefix), e.g. the provider
   * simulator's `http://127.0.0.1:4010/deepgram`; REST calls use http(s), live streams ws(s).
   */
  readonly baseUrl?: string;
  /** Speech model; {@link DEFAULT_MODEL} when absent. */
  readonly model?: string;
  /** BCP-47 language when a stream names none, e.g. `en-US`; the model's default when absent. */
  readonly language?: string;
  /** Silence (ms) after which Deepgram marks speech final; {@link DEFAULT_ENDPOINTING_MS} when absent. */
  readonly endpointingMs?: number;
  /** How long `finalize()` waits for Deepgram's `from_finalize` answer before resolving with what it has. */
  readonly finalizeTimeoutMs?: number;
  /** Audio is sent to Deepgram in chunks of this many ms; {@link DEFAULT_CHUNK_MS} when absent. */
  readonly chunkMs?: number;
  /** REST requests (the health probe) that have not answered by then fail; 10 by default. */
  readonly timeoutSeconds?: number;
}

/** Deepgram's current general model for live audio. */
export const DEFAULT_MODEL = 'nova-3';
/** Long enough not to split a sentence at a breath, short enough for a turn-taking voice agent. */
export const DEFAULT_ENDPOINTING_MS = 300;
/** Deepgram answers Finalize within a few hundred ms when it holds audio, and not at all when it holds none. */
export const DEFAULT_FINALIZE_TIMEOUT_MS = 1500;

/**
 * Deepgram takes 20–250 ms chunks; 200 ms is one WebSocket message per ten call frames (a socket
 * write each, the dearest part of forwarding a frame), and a finalize sends what is held at once,
 * so the end of a turn is not delayed by it.
 */
export const DEFAULT_CHUNK_MS = 200;

/** JSON Schema of {@link DeepgramSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['apiKey'],
  additionalProperties: false,
  properties: {
    apiKey: { type: 'string', minLength: 1, description: 'API key (sent as Authorization: Token <key>)' },
    baseUrl: { type: 'string', pattern: '^(https?|wss?)://[^\\s/]+', description: 'API origin override, e.g. the simulator' },
    model: { type: 'string', minLength: 1, description: 'e.g. nova-3, nova-2-phonecall' },
    language: { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$|^multi$', description: 'BCP-47 tag, or multi' },
    endpointingMs: { type: 'integer', minimum: 10, maximum: 10000 },
    finalizeTimeoutMs: { type: 'integer', minimum: 10, maximum: 30000 },
    chunkMs: { type: 'integer', minimum: 10, maximum: 500 },
    timeoutSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 120 },
  },
};
