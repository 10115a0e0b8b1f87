import type { JsonSchema } from '@switchboard/sdk';

/** Settings of the example driver; the runtime validates them against {@link settingsSchema}. */
export interface ExampleSettings {
  /** Bearer key for the provider's REST API. */
  readonly apiKey: string;
  /** Shared secret the provider signs webhooks with. */
  readonly webhookSecret: string;
  /** API origin; tests point it at a local stand-in. */
  readonly baseUrl?: string;
}

/** Where the provider's API lives when `baseUrl` is not set. */
export const DEFAULT_BASE_URL = 'https://api.sms.example.com';

/** JSON Schema of {@link ExampleSettings}: credentials required, nothing unknown accepted. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['apiKey', 'webhookSecret'],
  additionalProperties: false,
  properties: {
    apiKey: { type: 'string', minLength: 8 },
    webhookSecret: { type: 'string', minLength: 16 },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+' },
  },
};
