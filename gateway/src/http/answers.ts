import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { errorResult } from './errors.js';
import type { HttpResult } from './types.js';

/** The answers every HTTP adapter (and the deploy's switching listener) gives the same way. */

/** Methods whose requests carry no body: a connection can be reused after answering one unread. */
export const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/** The answer while the port is open but the routes are not ready yet: 503, never a 404 from an empty router. */
export const STARTING: { readonly status: 503; readonly headers: Record<string, string>; readonly body: string } = {
  status: 503,
  headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', 'cache-control': 'no-store' },
  body: JSON.stringify({ status: 'starting' }),
};

/** A body over the route's limit. */
export function tooLarge(limit: number): HttpResult {
  return errorResult(new SwitchboardError(ErrorCodes.PAYLOAD_TOO_LARGE, `The body is larger than the ${limit}-byte limit for this route.`));
}

/** A request that arrives while the server drains. */
export function shuttingDown(): HttpResult {
  return errorResult(new SwitchboardError(ErrorCodes.UNAVAILABLE, 'The server is shutting down; retry shortly.'));
}

/** A result's body as it is written, with the JSON content type where the body is sent as JSON. */
export function encodeResult(result: HttpResult): { headers: Record<string, string>; payload: string | Buffer } {
  const headers = { ...result.headers };
  const { body } = result;
  if (body === undefined) return { headers, payload: '' };
  if (typeof body === 'string' || Buffer.isBuffer(body)) return { headers, payload: body };
  headers['content-type'] ??= 'application/json; charset=utf-8';
  return { headers, payload: JSON.stringify(body) };
}
