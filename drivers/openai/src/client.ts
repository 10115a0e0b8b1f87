import OpenAI from 'openai';
import type { OpenAiSettings } from './settings.js';

/** A hung provider must not hold a call's turn for the SDK's default ten minutes. */
const REQUEST_TIMEOUT_SECONDS = 15;

/**
 * The official client for the settings. `maxRetries: 0`: the SDK's own retries back off on 429/5xx
 * and time-outs, which a live call cannot afford; the caller sees a retryable PROVIDER_ERROR at once
 * (and a call goes on with its next speech provider).
 */
export function createClient(settings: OpenAiSettings): OpenAI {
  return new OpenAI({
    apiKey: settings.apiKey,
    ...(settings.baseUrl ? { baseURL: settings.baseUrl.replace(/\/+$/, '') } : {}),
    maxRetries: 0,
    timeout: (settings.timeoutSeconds ?? REQUEST_TIMEOUT_SECONDS) * 1000,
  });
}

/** The HTTP status of an SDK error, when the provider answered. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
