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
  const client = new messagingApi.MessagingApiClient({
    channelAccessToken: settings.channelAccessToken,
    ...(settings.baseUrl ? { baseURL: settings.baseUrl.replace(/\/+$/, '') } : {}),
  });
  return {
    manifest,
    send: (message) => pushMessage(client, message),
    webhooks: lineWebhooks(settings.channelSecret),
    health: () => botHealth(client),
  };
});

export default driver;
export { describeMessage } from './webhooks.js';
export { retryKeyOf } from './push.js';
export { settingsSchema } from './settings.js';
export type { LineSettings } from './settings.js';
