import { randomUUID } from 'node:crypto';
import type { SimResponse } from '../http/sim-response.js';

/** A validation problem in LINE's `details` list. */
export interface LineErrorDetail {
  message: string;
  property: string;
}

/** Every LINE API answer carries a request id. */
export function lineHeaders(requestId = randomUUID()): Record<string, string> {
  return { 'x-line-request-id': requestId };
}

/** LINE's error body: `{message, details?}`. */
export function lineError(status: number, message: string, details?: LineErrorDetail[]): SimResponse {
  return { status, headers: lineHeaders(), json: details && details.length > 0 ? { message, details } : { message } };
}

/** An injected fault in LINE's shape; 429 carries Retry-After. */
export function lineFault(status: number, retryAfterSeconds: number): SimResponse {
  if (status === 429) {
    const response = lineError(429, 'The API rate limit has been exceeded. Try again later.');
    response.headers = { ...response.headers, 'retry-after': String(retryAfterSeconds) };
    return response;
  }
  if (status >= 500) return lineError(status, 'An error occurred on the LINE Platform. Try again later.');
  return lineError(status, 'The request was refused.');
}
