import { randomUUID } from 'node:crypto';
import type { SimResponse } from '../http/sim-response.js';

/** One entry of Telnyx's `errors` list. */
export interface TelnyxErrorEntry {
  code: string;
  title: string;
  detail?: string;
  source?: { pointer: string };
}

/** Every Telnyx API answer carries a request id. */
export function telnyxHeaders(): Record<string, string> {
  return { 'x-request-id': randomUUID() };
}

/** Telnyx's v2 error body: `{errors: [{code, title, detail, source?}]}`. */
export function telnyxError(status: number, ...errors: TelnyxErrorEntry[]): SimResponse {
  return { status, headers: telnyxHeaders(), json: { errors } };
}

export const UNAUTHORIZED: TelnyxErrorEntry = { code: '10009', title: 'Authentication failed', detail: 'The API key provided is not valid.' };
export const NOT_FOUND: TelnyxErrorEntry = { code: '10005', title: 'Resource not found', detail: 'The requested resource or URL could not be found.' };

/** An injected fault in Telnyx's shape; 429 carries Retry-After. */
export function telnyxFault(status: number, retryAfterSeconds: number): SimResponse {
  if (status === 429) {
    const response = telnyxError(429, { code: '10011', title: 'Too many requests', detail: 'You have exceeded the rate limit.' });
    response.headers = { ...response.headers, 'retry-after': String(retryAfterSeconds) };
    return response;
  }
  if (status === 401) return telnyxError(401, UNAUTHORIZED);
  if (status >= 500) return telnyxError(status, { code: '10007', title: 'Unexpected error', detail: 'An unexpected error occurred.' });
  return telnyxError(status, { code: '10015', title: 'Bad Request', detail: 'The request failed because it was not well-formed.' });
}
