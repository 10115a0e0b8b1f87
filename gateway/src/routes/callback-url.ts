import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Callback URLs must be https, or http to loopback outside production. */
export function checkCallbackUrl(url: string, environment: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(ErrorCodes.VALIDATION_FAILED, 'callbackUrl is not a valid URL.');
  }
  if (parsed.protocol === 'https:') return;
  if (parsed.protocol === 'http:' && environment !== 'production' && LOOPBACK.test(parsed.hostname)) return;
  fail(
    ErrorCodes.VALIDATION_FAILED,
    environment === 'production'
      ? 'callbackUrl must use https://.'
      : 'callbackUrl must use https://, or http:// to localhost/127.0.0.1 outside production.',
  );
}
