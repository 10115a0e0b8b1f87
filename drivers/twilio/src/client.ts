import twilio from 'twilio';
import type { TwilioSettings } from './settings.js';

type RequestOptions = Parameters<InstanceType<typeof twilio.RequestClient>['request']>[0];

/** Requests time out after this long; a hung provider must not hold a send for the SDK's default 30 s. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * The SDK's own HTTP client with `https://*.twilio.com` origins swapped for a configured base URL,
 * so the real SDK code path runs against the provider simulator.
 */
export class BaseUrlRequestClient extends twilio.RequestClient {
  readonly #baseUrl: string;

  constructor(baseUrl: string, options: ConstructorParameters<typeof twilio.RequestClient>[0] = {}) {
    super(options);
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
  }

  override request<T>(options: RequestOptions): Promise<T> {
    return super.request({ ...options, uri: rewriteOrigin(options.uri, this.#baseUrl) }) as Promise<T>;
  }
}

/** `https://api.twilio.com/2010-04-01/…` → `${baseUrl}/2010-04-01/…`; other URLs pass through. */
export function rewriteOrigin(uri: string, baseUrl: string): string {
  const url = new URL(uri);
  const isTwilio = url.protocol === 'https:' && (url.hostname === 'twilio.com' || url.hostname.endsWith('.twilio.com'));
  return isTwilio ? `${baseUrl}${url.pathname}${url.search}` : uri;
}

/** A Twilio REST client for the settings. */
export function createClient(settings: TwilioSettings): twilio.Twilio {
  const options = { timeout: REQUEST_TIMEOUT_MS, keepAlive: true };
  const httpClient = settings.baseUrl ? new BaseUrlRequestClient(settings.baseUrl, options) : new twilio.RequestClient(options);
  return twilio(settings.accountSid, settings.authToken, { httpClient, autoRetry: false });
}
