import Telnyx from 'telnyx';
import type { TelnyxSettings } from './settings.js';

/** Requests time out after this long; a hung provider must not hold a send for the SDK's default minute. */
const REQUEST_TIMEOUT_MS = 15_000;

/** A Telnyx API client for the settings: no SDK retries (the runtime retries by its own policy). */
export function createClient(settings: TelnyxSettings): Telnyx {
  return new Telnyx({
    apiKey: settings.apiKey,
    publicKey: settings.publicKey,
    ...(settings.baseUrl ? { baseURL: `${settings.baseUrl.replace(/\/+$/, '')}/v2` } : {}),
    timeout: REQUEST_TIMEOUT_MS,
    maxRetries: 0,
  });
}

/** The HTTP status of an SDK error (`APIError.status`); undefined for a connection failure. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
