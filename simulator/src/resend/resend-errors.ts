import type { SimResponse } from '../http/sim-response.js';

/** Resend's error body: `{statusCode, message, name}`. */
export function resendError(statusCode: number, name: string, message: string): SimResponse {
  return { status: statusCode, json: { statusCode, message, name } };
}

/** An injected fault in Resend's shape; 429 carries Retry-After and rate-limit headers. */
export function resendFault(status: number, retryAfterSeconds: number): SimResponse {
  if (status === 429) {
    const response = resendError(
      429,
      'rate_limit_exceeded',
      'Too many requests. You can only make 2 requests per second. See rate limit response headers for more information. Or contact support to increase rate limit.',
    );
    response.headers = { 'retry-after': String(retryAfterSeconds), 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': String(retryAfterSeconds) };
    return response;
  }
  if (status >= 500) return resendError(status, 'application_error', 'An unexpected error occurred, please try again later.');
  return resendError(status, 'validation_error', 'The request was refused.');
}
