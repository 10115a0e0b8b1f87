import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import type { ElevenLabsSettings } from './settings.js';

/** A hung provider must not hold a call's turn for the SDK's default 240 s. */
const REQUEST_TIMEOUT_SECONDS = 15;

/**
 * The official client for the settings. `maxRetries: 0`: the SDK's own retries wait at least a
 * second on 429/5xx, which a live call cannot afford; the caller sees a retryable PROVIDER_ERROR at
 * once and decides (the runtime's delivery chain retries where it is safe).
 */
export function createClient(settings: ElevenLabsSettings): ElevenLabsClient {
  return new ElevenLabsClient({
    apiKey: settings.apiKey,
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl.replace(/\/+$/, '') } : {}),
    maxRetries: 0,
    // The SDK arms this timer per request and clears it only when fetch resolves: after a network
    // failure it lingers (harmless in a server, but it holds a short-lived process open that long).
    timeoutInSeconds: settings.timeoutSeconds ?? REQUEST_TIMEOUT_SECONDS,
  });
}

/** The HTTP status of an SDK error, when the provider answered. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}
