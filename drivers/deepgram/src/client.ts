import { DeepgramClient, type DeepgramEnvironmentUrls } from '@deepgram/sdk';
import type { DeepgramSettings } from './settings.js';

/** A REST request that has not answered by then fails. */
const REQUEST_TIMEOUT_SECONDS = 10;

/**
 * The official client for the settings. Its own retries are off (`maxRetries: 0`, `reconnect:
 * false`): a live call cannot wait out back-off, and a silently reconnected stream would lose the
 * utterance in flight; the caller gets a coded error at once and decides.
 */
export function createClient(settings: DeepgramSettings): DeepgramClient {
  const environment = environmentOf(settings.baseUrl);
  return new DeepgramClient({
    apiKey: settings.apiKey,
    ...(environment ? { environment } : {}),
    maxRetries: 0,
    // The SDK clears this timer only when fetch resolves: after a network failure it lingers (harmless
    // in a server, but it holds a short-lived process such as a health check open that long).
    timeoutInSeconds: settings.timeoutSeconds ?? REQUEST_TIMEOUT_SECONDS,
    reconnect: false,
  });
}

/** One origin (and path prefix) for REST (http/https) and live streams (ws/wss), as the SDK wants them. */
export function environmentOf(baseUrl: string | undefined): DeepgramEnvironmentUrls | undefined {
  if (!baseUrl) return undefined;
  const url = new URL(baseUrl);
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const rest = `${secure ? 'https' : 'http'}://${url.host}${url.pathname.replace(/\/+$/, '')}`;
  const live = `${secure ? 'wss' : 'ws'}://${url.host}${url.pathname.replace(/\/+$/, '')}`;
  return { base: rest, production: live, agent: live, agentRest: rest };
}

/** The HTTP status of a failure: an SDK error's `statusCode`, or the status of a refused WebSocket upgrade. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number') return status;
  // A refused upgrade rejects with the socket's error event, whose message carries the status.
  const message = (err as { message?: unknown } | null)?.message;
  const upgrade = /Unexpected server response: (\d{3})/.exec(typeof message === 'string' ? message : String(err));
  return upgrade ? Number(upgrade[1]) : undefined;
}
