import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { createClient } from './client.js';
import { accountHealth } from './health.js';
import { fetchMessageStatus } from './message-status.js';
import { findSentMessages, sendMessage } from './messaging.js';
import { settingsSchema, type TwilioSettings } from './settings.js';
import { DEFAULT_TARIFF, estimateCost } from './tariff.js';
import { contentTemplates } from './templates.js';
import { twilioTelephony } from './voice.js';
import { messagingWebhooks } from './webhooks.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-twilio',
  version: '0.1.0',
  provider: 'twilio',
  sdk: '^0.1.0',
  channels: ['sms', 'whatsapp', 'voice'],
  telephony: ['recording'],
  settingsSchema,
};

/** Twilio SMS, WhatsApp and voice calls through the official `twilio` SDK. */
export const driver = defineDriver<TwilioSettings>(manifest, (settings): Driver => {
  const client = createClient(settings);
  const tariff = { ...DEFAULT_TARIFF, ...settings.tariff };
  return {
    manifest,
    send: (message) => sendMessage(client, settings, message),
    findSent: (message, since) => findSentMessages(client, message, since),
    fetchStatus: (message) => fetchMessageStatus(client, message),
    webhooks: messagingWebhooks(settings.authToken),
    templates: contentTemplates(client),
    telephony: twilioTelephony(client, settings),
    health: () => accountHealth(client, settings.accountSid),
    estimateCost: (message, segments) => estimateCost(tariff, message, segments),
    async close() {
      client.httpClient.axios.defaults.httpsAgent?.destroy?.();
    },
  };
});

export default driver;
export { BaseUrlRequestClient, rewriteOrigin } from './client.js';
export { countSegments } from './segments.js';
export type { SegmentCount } from './segments.js';
export { DEFAULT_TARIFF } from './tariff.js';
export { normaliseStatus } from './status.js';
export { renderTwiml } from './voice-twiml.js';
export { parseCallWebhook } from './voice-webhooks.js';
export { parseRecordingWebhook } from './voice-recording.js';
export { STATUS_CALLBACK_EVENTS } from './voice-calls.js';
export { settingsSchema } from './settings.js';
export type { TwilioSettings, TwilioTariff } from './settings.js';
