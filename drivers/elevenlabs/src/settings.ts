import type { JsonSchema } from '@switchboard/sdk';

/** Settings of the ElevenLabs driver. */
export interface ElevenLabsSettings {
  readonly apiKey: string;
  /** API origin override, e.g. the provider simulator; `https://api.elevenlabs.io` when absent. */
  readonly baseUrl?: string;
  /** Voice used when a request names none; {@link DEFAULT_VOICE_ID} when absent. */
  readonly defaultVoiceId?: string;
  /** Model used for synthesis; {@link DEFAULT_MODEL_ID} when absent. */
  readonly modelId?: string;
  /** A request that has not answered by then fails with a retryable PROVIDER_ERROR; 15 by default. */
  readonly timeoutSeconds?: number;
}

/** Rachel, one of ElevenLabs' premade voices, available on every account. */
export const DEFAULT_VOICE_ID = '21m00Tcm4TlvDq8ikWAM';
/** The low-latency model ElevenLabs recommends for live conversation. */
export const DEFAULT_MODEL_ID = 'eleven_flash_v2_5';

/** JSON Schema of {@link ElevenLabsSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['apiKey'],
  additionalProperties: false,
  properties: {
    apiKey: { type: 'string', minLength: 1, description: 'xi-api-key' },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+', description: 'API origin override, e.g. the simulator' },
    defaultVoiceId: { type: 'string', pattern: '^[A-Za-z0-9]{20}$', description: 'Voice id (20 letters and digits)' },
    modelId: { type: 'string', minLength: 1, description: 'e.g. eleven_flash_v2_5, eleven_multilingual_v2' },
    timeoutSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, description: 'Per-request timeout (default 15)' },
  },
};
