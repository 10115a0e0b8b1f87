import { randomUUID } from 'node:crypto';
import type { SimResponse } from '../http/sim-response.js';

/** Deepgram's error body: `{err_code, err_msg, request_id}`, with the message also in `dg-error`. */
export function deepgramError(status: number, code: string, message: string): SimResponse {
  const requestId = randomUUID();
  return { status, headers: { 'dg-request-id': requestId, 'dg-error': message }, json: { err_code: code, err_msg: message, request_id: requestId } };
}

/** An injected fault in Deepgram's shape; 429 carries Retry-After. */
export function deepgramFault(status: number, retryAfterSeconds: number): SimResponse {
  if (status === 429) {
    const response = deepgramError(429, 'TOO_MANY_REQUESTS', 'Too many requests. Please try again later.');
    response.headers = { ...response.headers, 'retry-after': String(retryAfterSeconds) };
    return response;
  }
  if (status >= 500) return deepgramError(status, 'INTERNAL_SERVER_ERROR', 'The service is unavailable; try again.');
  if (status === 401 || status === 403) return deepgramError(status, 'INVALID_AUTH', 'Invalid credentials.');
  return deepgramError(status, 'Bad Request', 'The request was refused.');
}

/** Checks `Authorization: Token <key>` (the scheme is case-insensitive); an error answer when it does not hold. */
export function checkToken(header: string | string[] | undefined, apiKey: string, protocols?: string | string[]): SimResponse | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  let key = value === undefined ? undefined : /^token\s+(\S+)$/i.exec(value.trim())?.[1];
  // Browsers cannot set headers on a WebSocket; Deepgram also takes `Sec-WebSocket-Protocol: token, <key>`.
  if (key === undefined && protocols !== undefined) {
    const parts = (Array.isArray(protocols) ? protocols.join(',') : protocols).split(',').map((p) => p.trim());
    if (parts[0]?.toLowerCase() === 'token' && parts[1]) key = parts[1];
  }
  if (key === undefined) return deepgramError(401, 'INVALID_AUTH', 'Invalid credentials.');
  if (key !== apiKey) return deepgramError(401, 'INVALID_AUTH', 'Invalid credentials.');
  return undefined;
}
