import type { JsonSchema } from '@switchboard/sdk';

/** Graph API version used when the settings name none. */
export const DEFAULT_API_VERSION = 'v23.0';

/** Settings of the WhatsApp Cloud API driver. */
export interface WhatsAppCloudSettings {
  /** A system user's access token with `whatsapp_business_messaging` (and `whatsapp_business_management` for templates), sent as Bearer. */
  readonly accessToken: string;
  /** The Meta app's secret: `X-Hub-Signature-256` is the HMAC-SHA256 of each webhook body under it. */
  readonly appSecret: string;
  /** The business phone number's id (not the number itself): messages go out from it. */
  readonly phoneNumberId: string;
  /** The token typed into the app's webhook settings; the verification handshake must echo it. */
  readonly verifyToken?: string;
  /** The WhatsApp Business Account id, for listing message templates. */
  readonly wabaId?: string;
  /** Origin that replaces `https://graph.facebook.com`, e.g. the provider simulator. */
  readonly baseUrl?: string;
  /** Graph API version, e.g. `v23.0`. */
  readonly apiVersion?: string;
}

/** JSON Schema of {@link WhatsAppCloudSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['accessToken', 'appSecret', 'phoneNumberId'],
  additionalProperties: false,
  properties: {
    accessToken: { type: 'string', minLength: 1, description: 'System user access token, sent as Bearer' },
    appSecret: { type: 'string', minLength: 1, description: "The app's secret, which signs webhooks (X-Hub-Signature-256)" },
    phoneNumberId: { type: 'string', pattern: '^[0-9]+$', description: 'Business phone number id' },
    verifyToken: { type: 'string', minLength: 1, description: "Verify token of the app's webhook settings (the GET handshake)" },
    wabaId: { type: 'string', pattern: '^[0-9]+$', description: 'WhatsApp Business Account id (message templates)' },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+', description: 'Graph API origin override, e.g. the simulator' },
    apiVersion: { type: 'string', pattern: '^v[0-9]+\\.[0-9]+$', description: `Graph API version (${DEFAULT_API_VERSION} by default)` },
  },
};
