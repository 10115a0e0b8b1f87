import { messagingApi } from '@line/bot-sdk';
import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { botHealth } from './health.js';
import { pushMessage } from './push.js';
import { settingsSchema, type LineSettings } from './settings.js';
import { lineWebhooks } from './webhooks.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-line',
  version: '0.1.0',
  provider: 'line',
  sdk: '^0.1.0',
  channels: ['line'],
  settingsSchema,
};

/** LINE Messaging API through the official `@line/bot-sdk`. */
export const driver = defineDriver<LineSettings>(manifest, (settings): Driver => {
  const clientFor = (channelAccessToken: string) =>
    new messagingApi.MessagingApiClient({ channelAccessToken, ...(settings.baseUrl ? { baseURL: settings.baseUrl.replace(/\/+$/, '') } : {}) });
  const client = clientFor(settings.channelAccessToken);
  const bots = new Map((settings.bots ?? []).map((bot) => [bot.botUserId, clientFor(bot.channelAccessToken)]));
  return {
    manifest,
    // LINE sends from the bot whose token is used: the agent's address (its bot user id) picks the token.
    send: (message) => pushMessage(bots.get(message.from) ?? client, message),
    webhooks: lineWebhooks(settings.channelSecret, new Map((settings.bots ?? []).map((bot) => [bot.botUserId, bot.channelSecret]))),
    health: () => botHealth(client),
  };
});

export default driver;
export { describeMessage } from './webhooks.js';
export { retryKeyOf } from './push.js';
export { settingsSchema } from './settings.js';
export type { LineBotSettings, LineSettings } from './settings.js';
