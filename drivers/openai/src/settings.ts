import type { JsonSchema } from '@switchboard/sdk';

/** Settings of the OpenAI text-to-speech driver. */
export interface OpenAiSettings {
  readonly apiKey: string;
  /** API base URL override, e.g. the provider simulator; `https://api.openai.com/v1` when absent. */
  readonly baseUrl?: string;
  /** Speech model; {@link DEFAULT_MODEL} when absent. */
  readonly model?: string;
  /** Voice used when a request names none; {@link DEFAULT_VOICE} when absent. */
  readonly voice?: string;
  /** A request that has not answered by then fails with a retryable PROVIDER_ERROR; 15 by default. */
  readonly timeoutSeconds?: number;
}

/** OpenAI's low-latency speech model. */
export const DEFAULT_MODEL = 'gpt-4o-mini-tts';
/** One of OpenAI's built-in voices, available to every model. */
export const DEFAULT_VOICE = 'alloy';

/** JSON Schema of {@link OpenAiSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['apiKey'],
  additionalProperties: false,
  properties: {
    apiKey: { type: 'string', minLength: 1, description: 'OpenAI API key (sk-...)' },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+', description: 'API base URL override (default https://api.openai.com/v1), e.g. the simulator' },
    model: { type: 'string', minLength: 1, description: 'e.g. gpt-4o-mini-tts, tts-1, tts-1-hd' },
    voice: { type: 'string', minLength: 1, description: 'e.g. alloy, ash, coral, echo, sage, shimmer' },
    timeoutSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, description: 'Per-request timeout (default 15)' },
  },
};
