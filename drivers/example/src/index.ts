import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { ExampleSmsApi } from './api.js';
import { DEFAULT_BASE_URL, settingsSchema, type ExampleSettings } from './settings.js';
import { exampleWebhooks } from './webhooks.js';

/** What the runtime checks before it creates the driver: names, channels, sdk range, settings schema. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-example',
  version: '0.1.0',
  provider: 'example',
  sdk: '^0.1.0',
  channels: ['sms'],
  settingsSchema,
};

/** SMS through a generic webhook SMS provider, on plain fetch. Copy this package to start a driver. */
export const driver = defineDriver<ExampleSettings>(manifest, (settings): Driver => {
  const api = new ExampleSmsApi(settings.baseUrl ?? DEFAULT_BASE_URL, settings.apiKey);
  return {
    manifest,
    send: (message) => api.send(message),
    webhooks: exampleWebhooks(settings.webhookSecret),
    health: () => api.health(),
    // The provider prices at send time; there is no tariff to estimate from.
    estimateCost: () => null,
  };
});

export default driver;
export { SIGNATURE_HEADER, TOLERANCE_SECONDS, signWebhook, verifyWebhook } from './signature.js';
export { settingsSchema } from './settings.js';
export type { ExampleSettings } from './settings.js';
