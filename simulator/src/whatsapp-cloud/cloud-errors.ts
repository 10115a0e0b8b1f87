import { randomBytes } from 'node:crypto';
import type { SimResponse } from '../http/sim-response.js';

/** The Graph API's error body: `{error: {message, type, code, error_subcode?, error_data?, fbtrace_id}}`. */
export function graphError(status: number, code: number, message: string, type = 'OAuthException', details?: string): SimResponse {
  return {
    status,
    headers: { 'www-authenticate': status === 401 ? `OAuth "Facebook Platform" "invalid_token" "${message}"` : 'OAuth "Facebook Platform"' },
    json: { error: { message, type, code, ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}), fbtrace_id: randomBytes(12).toString('base64url') } },
  };
}

/** Code 190: the access token is missing, wrong or expired. */
export const invalidToken = (): SimResponse => graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');

/** Code 100: an unknown object or a bad parameter. */
export const invalidParameter = (message: string, details?: string): SimResponse => graphError(400, 100, message, 'OAuthException', details);

/** An injected fault as Meta answers it: 429 is code 80007 (rate limit), 5xx code 1 or 2, other 4xx code 100. */
export function cloudFault(status: number, retryAfterSeconds: number): SimResponse {
  if (status === 429) {
    const response = graphError(429, 80007, 'Rate limit issues', 'OAuthException');
    response.headers = { ...response.headers, 'retry-after': String(retryAfterSeconds) };
    return response;
  }
  if (status === 401) return invalidToken();
  if (status >= 500) return graphError(status, status === 503 ? 2 : 1, status === 503 ? 'Service temporarily unavailable' : 'An unknown error occurred', 'OAuthException');
  return invalidParameter('Invalid parameter');
}

/** Error 131047: a free-form message more than 24 hours after the user's last message. */
export const RE_ENGAGEMENT = {
  code: 131047,
  title: 'Re-engagement message',
  message: 'Re-engagement message',
  error_data: { details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.' },
} as const;
