import type { JsonSchema } from '@switchboard/sdk';

/** Per-message list prices in USD used when Twilio reports no price yet. */
export interface TwilioTariff {
  /** Per SMS segment. */
  readonly sms?: number;
  /** Per WhatsApp message (Twilio's fee; Meta's conversation charge is not included). */
  readonly whatsapp?: number;
}

/** Settings of the Twilio driver. */
export interface TwilioSettings {
  readonly accountSid: string;
  readonly authToken: string;
  /** Origin that replaces `https://*.twilio.com`, e.g. the provider simulator; the path is kept. */
  readonly baseUrl?: string;
  /** Sends through this Messaging Service (sender pool, status callback defaults). */
  readonly messagingServiceSid?: string;
  /** Overrides {@link DEFAULT_TARIFF} for cost estimates. */
  readonly tariff?: TwilioTariff;
}

/** JSON Schema of {@link TwilioSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['accountSid', 'authToken'],
  additionalProperties: false,
  properties: {
    accountSid: { type: 'string', pattern: '^AC[0-9a-fA-F]{32}$', description: 'Account SID (AC…)' },
    authToken: { type: 'string', minLength: 1, description: 'Auth token; also the webhook signing key' },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+', description: 'API origin override, e.g. the simulator' },
    messagingServiceSid: { type: 'string', pattern: '^MG[0-9a-fA-F]{32}$' },
    tariff: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sms: { type: 'number', minimum: 0 },
        whatsapp: { type: 'number', minimum: 0 },
      },
    },
  },
};
