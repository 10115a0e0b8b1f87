import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { createClient } from './client.js';
import { accountHealth } from './health.js';
import { fetchMessageStatus } from './message-status.js';
import { sendMessage } from './messaging.js';
import { settingsSchema, type TelnyxSettings } from './settings.js';
import { DEFAULT_TARIFF, estimateCost } from './tariff.js';
import { telnyxTelephony } from './voice.js';
import { messagingWebhooks } from './webhooks.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-telnyx',
  version: '0.1.0',
  provider: 'telnyx',
  sdk: '^0.1.0',
  channels: ['sms', 'voice'],
  settingsSchema,
};

/** Telnyx SMS, MMS and voice calls (Call Control with media streams) through the official `telnyx` SDK. */
export const driver = defineDriver<TelnyxSettings>(manifest, (settings): Driver => {
  const client = createClient(settings);
  const tariff = { ...DEFAULT_TARIFF, ...settings.tariff };
  return {
    manifest,
    send: (message) => sendMessage(client, settings, message),
    fetchStatus: (message) => fetchMessageStatus(client, message),
    webhooks: messagingWebhooks(client, settings.apiKey),
    telephony: telnyxTelephony(client, settings),
    health: () => accountHealth(client),
    estimateCost: (message, segments) => estimateCost(tariff, message, segments),
  };
});

export default driver;
export { DEFAULT_TARIFF } from './tariff.js';
export { normaliseStatus } from './status.js';
export { parseMessagingWebhook } from './webhooks.js';
export { parseCallWebhook } from './voice-webhooks.js';
export { readStreamStart, signedStreamUrl, streamUrlHolds } from './voice-stream.js';
export { callCommands } from './voice-commands.js';
export { settingsSchema } from './settings.js';
export type { TelnyxSettings, TelnyxTariff } from './settings.js';
