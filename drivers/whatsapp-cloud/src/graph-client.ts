import { providerError } from '@switchboard/sdk';
import { DEFAULT_API_VERSION, type WhatsAppCloudSettings } from './settings.js';

/** Requests time out after this long: a hung Graph API must not hold a send. */
const REQUEST_TIMEOUT_MS = 15_000;

const PROVIDER = 'whatsapp-cloud';

/** The Graph API's error body: `{error: {message, type, code, error_subcode?, fbtrace_id}}`. */
interface GraphErrorBody {
  readonly error?: { readonly message?: string; readonly type?: string; readonly code?: number; readonly error_subcode?: number; readonly fbtrace_id?: string };
}

/** An error answer of the Graph API: its HTTP status and Meta's numeric code (131047, 190…). */
export class GraphApiError extends Error {
  readonly status: number;
  readonly graphCode: number | undefined;

  constructor(status: number, body: GraphErrorBody | undefined) {
    const error = body?.error;
    super(error?.message ? `${error.message}${error.code === undefined ? '' : ` (code ${error.code}${error.type ? `, ${error.type}` : ''})`}` : `HTTP ${status}`);
    this.name = 'GraphApiError';
    this.status = status;
    this.graphCode = typeof error?.code === 'number' ? error.code : undefined;
  }
}

/**
 * A minimal Graph API client on `fetch`: Meta publishes no maintained Node SDK for the Cloud API.
 * Every failure is a PROVIDER_ERROR (retryable for 408/429/5xx and network faults).
 */
export class GraphClient {
  readonly #settings: WhatsAppCloudSettings;
  readonly #root: string;

  constructor(settings: WhatsAppCloudSettings) {
    this.#settings = settings;
    this.#root = `${(settings.baseUrl ?? 'https://graph.facebook.com').replace(/\/+$/, '')}/${settings.apiVersion ?? DEFAULT_API_VERSION}`;
  }

  get settings(): WhatsAppCloudSettings {
    return this.#settings;
  }

  /** `path` below the version, e.g. `/123/messages`; `query` is appended. */
  async request<T>(method: 'GET' | 'POST', path: string, options: { body?: unknown; query?: Record<string, string> } = {}): Promise<T> {
    const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
    let response: Response;
    try {
      response = await fetch(`${this.#root}${path}${query}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#settings.accessToken}`,
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw providerError(PROVIDER, err);
    }
    const text = await response.text().catch(() => '');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) throw providerError(PROVIDER, new GraphApiError(response.status, json as GraphErrorBody | undefined), response.status);
    if (json === undefined) throw providerError(PROVIDER, new Error('the answer is not JSON'), 502);
    return json as T;
  }
}

/** Meta's numeric error code inside a PROVIDER_ERROR from {@link GraphClient}, if any. */
export function graphCodeOf(err: unknown): number | undefined {
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof GraphApiError ? cause.graphCode : undefined;
}
