import type { JsonSchema } from '@switchboard/sdk';

/** Per-message list prices in USD used when Telnyx reports no cost yet. */
export interface TelnyxTariff {
  /** Per SMS part. */
  readonly sms?: number;
  /** Per MMS message. */
  readonly mms?: number;
}

/** Settings of the Telnyx driver. */
export interface TelnyxSettings {
  /** API key (`KEY…`), sent as a Bearer token. */
  readonly apiKey: string;
  /** The account's webhook public key (base64 Ed25519, from the portal's API keys page); verifies `telnyx-signature-ed25519`. */
  readonly publicKey: string;
  /** Origin that replaces `https://api.telnyx.com`, e.g. the provider simulator; `/v2` is appended. */
  readonly baseUrl?: string;
  /** Sends through this messaging profile (number pool, profile webhooks) when a message names no sender of its own. */
  readonly messagingProfileId?: string;
  /** The Call Control application (connection) calls are placed from; needed for voice. */
  readonly connectionId?: string;
  /** Overrides {@link DEFAULT_TARIFF} for cost estimates. */
  readonly tariff?: TelnyxTariff;
}

/** JSON Schema of {@link TelnyxSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['apiKey', 'publicKey'],
  additionalProperties: false,
  properties: {
    apiKey: { type: 'string', minLength: 1, description: 'API key (KEY…)' },
    publicKey: {
      type: 'string',
      // 32 raw bytes in padded base64: 43 characters and one '='.
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description: 'Webhook public key (base64 Ed25519) from the Telnyx portal',
    },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+', description: 'API origin override, e.g. the simulator' },
    messagingProfileId: { type: 'string', minLength: 1 },
    connectionId: { type: 'string', minLength: 1, description: 'Call Control application id, for voice calls' },
    tariff: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sms: { type: 'number', minimum: 0 },
        mms: { type: 'number', minimum: 0 },
      },
    },
  },
};
