import { ErrorCodes, SwitchboardError, toErrorPayload, type ErrorPayload } from '@switchboard/sdk';

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  [ErrorCodes.BAD_REQUEST]: 400,
  [ErrorCodes.VALIDATION_FAILED]: 400,
  [ErrorCodes.MALFORMED_PAYLOAD]: 400,
  [ErrorCodes.UNAUTHORIZED]: 401,
  [ErrorCodes.FORBIDDEN]: 403,
  [ErrorCodes.SIGNATURE_INVALID]: 403,
  [ErrorCodes.CHANNEL_BLOCKED]: 403,
  [ErrorCodes.RECIPIENT_OPTED_OUT]: 403,
  [ErrorCodes.EMAIL_SUPPRESSED]: 403,
  [ErrorCodes.OUTSIDE_CALLING_HOURS]: 403,
  [ErrorCodes.CONSENT_REQUIRED]: 403,
  [ErrorCodes.NOT_FOUND]: 404,
  [ErrorCodes.METHOD_NOT_ALLOWED]: 405,
  [ErrorCodes.CONFLICT]: 409,
  [ErrorCodes.POOL_EXHAUSTED]: 409,
  [ErrorCodes.CHANNEL_NOT_PROVISIONED]: 409,
  [ErrorCodes.WHATSAPP_WINDOW_CLOSED]: 409,
  [ErrorCodes.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCodes.UNSUPPORTED_MEDIA_TYPE]: 415,
  [ErrorCodes.RATE_LIMITED]: 429,
  [ErrorCodes.PROVIDER_ERROR]: 502,
  [ErrorCodes.UNAVAILABLE]: 503,
  [ErrorCodes.TIMEOUT]: 504,
};

/** The HTTP status for an error code; unknown codes are 500. */
export function statusOf(code: string): number {
  return STATUS_BY_CODE[code] ?? 500;
}

/**
 * The contract's error answer for any thrown value, with Retry-After where the error gives one and
 * WWW-Authenticate where a refused credential carries its challenge.
 */
export function errorResult(err: unknown): { status: number; headers?: Record<string, string>; body: ErrorPayload } {
  const body = toErrorPayload(err);
  delete body.retryable;
  const status = statusOf(body.code);
  const headers: Record<string, string> = {};
  const retryAfter = (err as SwitchboardError | undefined)?.retryAfter;
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  const challenge = (err as { challenge?: unknown } | undefined)?.challenge;
  if (typeof challenge === 'string') headers['www-authenticate'] = challenge;
  return Object.keys(headers).length === 0 ? { status, body } : { status, body, headers };
}

/** Shorthand for throwing a coded error from a handler. */
export function fail(code: string, message: string, details?: unknown[]): never {
  throw new SwitchboardError(code, message, details === undefined ? {} : { details });
}
