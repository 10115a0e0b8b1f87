import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { GraphClient } from './graph-client.js';
import { phoneNumberHealth } from './health.js';
import { sendMessage } from './messaging.js';
import { settingsSchema, type WhatsAppCloudSettings } from './settings.js';
import { messageTemplates } from './templates.js';
import { cloudWebhooks } from './webhooks.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-whatsapp-cloud',
  version: '0.1.0',
  provider: 'whatsapp-cloud',
  sdk: '^0.1.0',
  channels: ['whatsapp'],
  settingsSchema,
};

/**
 * WhatsApp through Meta's Cloud API (the Graph API, directly) on `fetch` and `node:crypto`: Meta
 * publishes no maintained Node SDK for it. The API has no message lookup, so no fetchStatus.
 */
export const driver = defineDriver<WhatsAppCloudSettings>(manifest, (settings): Driver => {
  const client = new GraphClient(settings);
  return {
    manifest,
    send: (message) => sendMessage(client, message),
    webhooks: cloudWebhooks(settings),
    health: () => phoneNumberHealth(client),
    ...(settings.wabaId ? { templates: messageTemplates(client) } : {}),
  };
});

export default driver;
export { DEFAULT_API_VERSION, settingsSchema } from './settings.js';
export { normaliseStatus } from './status.js';
export { answerHandshake, parseCloudWebhook, verifySignature } from './webhooks.js';
export { templateComponents } from './templates.js';
export type { WhatsAppCloudSettings } from './settings.js';
