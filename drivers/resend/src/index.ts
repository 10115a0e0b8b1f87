import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { Resend } from 'resend';
import { sendEmail } from './email.js';
import { fetchEmailStatus } from './email-status.js';
import { domainsHealth } from './health.js';
import { settingsSchema, type ResendSettings } from './settings.js';
import { emailWebhooks } from './webhooks.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-resend',
  version: '0.1.0',
  provider: 'resend',
  sdk: '^0.1.0',
  channels: ['email'],
  settingsSchema,
};

/** Resend email through the official `resend` SDK, webhooks checked with `svix`. */
export const driver = defineDriver<ResendSettings>(manifest, (settings): Driver => {
  const resend = new Resend(settings.apiKey, settings.baseUrl ? { baseUrl: settings.baseUrl.replace(/\/+$/, '') } : {});
  return {
    manifest,
    send: (message) => sendEmail(resend, message),
    fetchStatus: (message) => fetchEmailStatus(resend, message),
    webhooks: emailWebhooks(resend, settings.webhookSecret),
    health: () => domainsHealth(resend),
  };
});

export default driver;
export { settingsSchema } from './settings.js';
export type { ResendSettings } from './settings.js';
