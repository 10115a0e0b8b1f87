import type { JsonSchema } from '@switchboard/sdk';

/** Settings of the LINE driver. */
export interface LineSettings {
  /** Long-lived channel access token of the Messaging API channel. */
  readonly channelAccessToken: string;
  /** Channel secret: the webhook signing key. */
  readonly channelSecret: string;
  /** API origin override, e.g. the provider simulator; `https://api.line.me` when absent. */
  readonly baseUrl?: string;
  /**
   * Further LINE channels (bots), each with its own credentials. A push from a bot's user id goes out
   * with that bot's token, and a webhook addressed to it (`destination`) is checked with its secret;
   * anything else uses the channel above.
   */
  readonly bots?: readonly LineBotSettings[];
}

/** One more LINE channel: the bot's user id and its channel's credentials. */
export interface LineBotSettings {
  readonly botUserId: string;
  readonly channelAccessToken: string;
  readonly channelSecret: string;
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
    bots: {
      type: 'array',
      description: 'Further LINE channels (bots), each with its own credentials',
      items: {
        type: 'object',
        required: ['botUserId', 'channelAccessToken', 'channelSecret'],
        additionalProperties: false,
        properties: {
          botUserId: { type: 'string', pattern: '^U[0-9a-f]{32}$', description: 'The bot user id (U and 32 hex digits)' },
          channelAccessToken: { type: 'string', minLength: 1 },
          channelSecret: { type: 'string', pattern: '^[0-9a-fA-F]{32}$', description: '32 hex digits' },
        },
      },
    },
  },
};
