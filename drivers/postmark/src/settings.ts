import type { JsonSchema } from '@switchboard/sdk';

/** The message stream sends go to when the settings name none: Postmark's default transactional stream. */
export const DEFAULT_MESSAGE_STREAM = 'outbound';

/** Settings of the Postmark driver. */
export interface PostmarkSettings {
  /** The server's API token, sent as `X-Postmark-Server-Token`. */
  readonly serverToken: string;
  /**
   * The HTTP Basic user name written into the webhook URLs given to Postmark (`https://user:pass@host/…`):
   * Postmark signs no webhook, so these credentials are what proves a webhook came from it.
   */
  readonly webhookUsername: string;
  /** The HTTP Basic password of the webhook URLs: 16 or more letters, digits, `.`, `_`, `~` or `-`. */
  readonly webhookPassword: string;
  /** The transactional message stream to send through; `outbound` when absent. */
  readonly messageStream?: string;
  /** API origin override, e.g. the provider simulator; `https://api.postmarkapp.com` when absent. */
  readonly baseUrl?: string;
}

/** JSON Schema of {@link PostmarkSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['serverToken', 'webhookUsername', 'webhookPassword'],
  additionalProperties: false,
  properties: {
    serverToken: { type: 'string', minLength: 1, description: 'Server API token (X-Postmark-Server-Token)' },
    // Unreserved URL characters only: they go into the webhook URL as they are, with nothing to encode.
    webhookUsername: { type: 'string', pattern: '^[A-Za-z0-9._~-]+$', description: 'HTTP Basic user name of the webhook URLs (letters, digits, . _ ~ -)' },
    webhookPassword: { type: 'string', pattern: '^[A-Za-z0-9._~-]{16,}$', description: 'HTTP Basic password of the webhook URLs (16 or more letters, digits, . _ ~ -)' },
    messageStream: { type: 'string', pattern: '^[a-z0-9-]+$', description: `Message stream id (${DEFAULT_MESSAGE_STREAM} by default)` },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+', description: 'API origin override, e.g. the simulator' },
  },
};
