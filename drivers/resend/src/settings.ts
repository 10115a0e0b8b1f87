import type { JsonSchema } from '@switchboard/sdk';

/** Settings of the Resend driver. */
export interface ResendSettings {
  readonly apiKey: string;
  /** The webhook's Svix signing secret, `whsec_…`. */
  readonly webhookSecret: string;
  /** API origin override, e.g. the provider simulator; `https://api.resend.com` when absent. */
  readonly baseUrl?: string;
}

/** JSON Schema of {@link ResendSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['apiKey', 'webhookSecret'],
  additionalProperties: false,
  properties: {
    apiKey: { type: 'string', minLength: 1, description: 'API key (re_…)' },
    webhookSecret: { type: 'string', pattern: '^(whsec_)?[A-Za-z0-9+/]+={0,2}$', description: 'Svix signing secret (whsec_…)' },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+', description: 'API origin override, e.g. the simulator' },
  },
};
