import type { JsonSchema } from '@switchboard/sdk';

/** Settings of the LINE driver. */
export interface LineSettings {
  /** Long-lived channel access token of the Messaging API channel. */
  readonly channelAccessToken: string;
  /** Channel secret: the webhook signing key. */
  readonly channelSecret: string;
  /** API origin override, e.g. the provider simulator; `https://api.line.me` when absent. */
  readonly baseUrl?: string;
}

/** JSON Schema of {@link LineSettings}. */
export const settingsSchema: JsonSchema = {
  type: 'object',
  required: ['channelAccessToken', 'channelSecret'],
  additionalProperties: false,
  properties: {
    channelAccessToken: { type: 'string', minLength: 1 },
    channelSecret: { type: 'string', pattern: '^[0-9a-fA-F]{32}$', description: '32 hex digits' },
    baseUrl: { type: 'string', pattern: '^https?://[^\\s/]+', description: 'API origin override, e.g. the simulator' },
  },
};
