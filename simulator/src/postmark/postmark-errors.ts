import type { SimResponse } from '../http/sim-response.js';

/** Postmark's error body: `{ErrorCode, Message}` (HTTP 422 for a request it refuses, 401 for the token). */
export function postmarkError(status: number, errorCode: number, message: string): SimResponse {
  return { status, json: { ErrorCode: errorCode, Message: message } };
}

/** An injected fault in Postmark's shape; 429 carries Retry-After. */
export function postmarkFault(status: number, retryAfterSeconds: number): SimResponse {
  if (status === 429) {
    const response = postmarkError(429, 429, 'Rate limit exceeded.');
    response.headers = { 'retry-after': String(retryAfterSeconds) };
    return response;
  }
  if (status === 503) return postmarkError(503, 100, 'Maintenance: the Postmark API is offline for maintenance.');
  if (status >= 500) return postmarkError(status, 0, 'An internal server error occurred.');
  if (status === 401) return postmarkError(401, 10, 'The Server Token you provided in the X-Postmark-Server-Token request header was invalid.');
  return postmarkError(status, 300, 'Invalid email request.');
}
