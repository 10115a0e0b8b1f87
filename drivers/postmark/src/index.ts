import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { ServerClient } from 'postmark';
import { sendEmail } from './email.js';
import { REQUEST_TIMEOUT_SECONDS } from './failure.js';
import { serverHealth } from './health.js';
import { fetchEmailStatus, findSent } from './sent-messages.js';
import { DEFAULT_MESSAGE_STREAM, settingsSchema, type PostmarkSettings } from './settings.js';
import { postmarkWebhooks } from './webhooks.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-postmark',
  version: '0.1.0',
  provider: 'postmark',
  sdk: '^0.1.0',
  channels: ['email'],
  settingsSchema,
};

/**
 * `fetch` for the SDK, which keeps only the message of a failed request: the socket error behind
 * `fetch failed` (ECONNREFUSED…) is added to it, so a refused connection reads as one (failure.ts).
 */
const describedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  try {
    return await fetch(input, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
    const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
    if (!(err instanceof Error) || detail === undefined) throw err;
    throw Object.assign(new Error(`${err.message} (${detail})`, { cause: err }), { name: err.name });
  }
};

/** The SDK's client for the server token, at `baseUrl` when one is set (the SDK takes a host and a scheme). */
function clientOf(settings: PostmarkSettings): ServerClient {
  const options = { timeout: REQUEST_TIMEOUT_SECONDS, fetch: describedFetch };
  if (!settings.baseUrl) return new ServerClient(settings.serverToken, options);
  const url = new URL(settings.baseUrl);
  const requestHost = `${url.host}${url.pathname.replace(/\/+$/, '')}`;
  return new ServerClient(settings.serverToken, { ...options, requestHost, useHttps: url.protocol === 'https:' });
}

/**
 * Postmark email through the official `postmark` SDK. Postmark signs no webhook: its webhooks carry the
 * HTTP Basic credentials of their URL, checked against the settings.
 */
export const driver = defineDriver<PostmarkSettings>(manifest, (settings): Driver => {
  const client = clientOf(settings);
  const stream = settings.messageStream ?? DEFAULT_MESSAGE_STREAM;
  return {
    manifest,
    send: (message) => sendEmail(client, stream, message),
    findSent: (message, since) => findSent(client, message, since),
    fetchStatus: (message) => fetchEmailStatus(client, message),
    webhooks: postmarkWebhooks(settings),
    health: () => serverHealth(client),
  };
});

export default driver;
export { parsePostmarkWebhook, verifyCredentials } from './webhooks.js';
export { DEFAULT_MESSAGE_STREAM, settingsSchema } from './settings.js';
export type { PostmarkSettings } from './settings.js';
