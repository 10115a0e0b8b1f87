/** Stable error codes. Clients and drivers match on these, never on messages or classes. */
export const ErrorCodes = {
  BAD_REQUEST: 'BAD_REQUEST',
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  CONFLICT: 'CONFLICT',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
  CHANNEL_BLOCKED: 'CHANNEL_BLOCKED',
  CHANNEL_NOT_PROVISIONED: 'CHANNEL_NOT_PROVISIONED',
  RECIPIENT_OPTED_OUT: 'RECIPIENT_OPTED_OUT',
  EMAIL_SUPPRESSED: 'EMAIL_SUPPRESSED',
  OUTSIDE_CALLING_HOURS: 'OUTSIDE_CALLING_HOURS',
  CONSENT_REQUIRED: 'CONSENT_REQUIRED',
  /** A free-form WhatsApp message outside the 24-hour customer service window: send a template instead. */
  WHATSAPP_WINDOW_CLOSED: 'WHATSAPP_WINDOW_CLOSED',
  POOL_EXHAUSTED: 'POOL_EXHAUSTED',
  PROVIDER_ERROR: 'PROVIDER_ERROR',
  SIGNATURE_INVALID: 'SIGNATURE_INVALID',
  MALFORMED_PAYLOAD: 'MALFORMED_PAYLOAD',
  DRIVER_NOT_FOUND: 'DRIVER_NOT_FOUND',
  DRIVER_INCOMPATIBLE: 'DRIVER_INCOMPATIBLE',
  DRIVER_SETTINGS_INVALID: 'DRIVER_SETTINGS_INVALID',
  DRIVER_CONFLICT: 'DRIVER_CONFLICT',
  TIMEOUT: 'TIMEOUT',
  UNAVAILABLE: 'UNAVAILABLE',
  INTERNAL: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** The JSON shape of an error on the wire and on the bus. */
export interface ErrorPayload {
  error: string;
  code: string;
  details?: unknown[];
  retryable?: boolean;
}

export interface SwitchboardErrorOptions {
  cause?: unknown;
  /** Whether trying the same thing again later can succeed. */
  retryable?: boolean;
  details?: unknown[];
  /** Seconds after which a retry makes sense (RATE_LIMITED). */
  retryAfter?: number;
  /**
   * A provider call that provably did not take the request: the provider answered with an error, or no
   * connection was made. Only such a failure lets a send go to another provider; a time-out or a
   * connection lost mid-request might have been accepted, and is not one.
   */
  notAccepted?: boolean;
}

/** An error with a stable code, an optional cause, and whether a retry can help. */
export class SwitchboardError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details: unknown[] | undefined;
  readonly retryAfter: number | undefined;
  readonly notAccepted: boolean;

  constructor(code: string, message: string, options: SwitchboardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SwitchboardError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.notAccepted = options.notAccepted ?? false;
  }

  toJSON(): ErrorPayload {
    return toErrorPayload(this);
  }
}

/** True when `err` carries the given code (or any code when none is given), whatever its class or realm. */
export function hasErrorCode(err: unknown, code?: string): err is { code: string; message: string } {
  if (typeof err !== 'object' || err === null) return false;
  const actual = (err as { code?: unknown }).code;
  if (typeof actual !== 'string') return false;
  return code === undefined || actual === code;
}

/** True when a retry of the failed operation can help. */
export function isRetryable(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { retryable?: unknown }).retryable === true;
}

/** True when a provider call failed in a way that proves the provider did not take the request. */
export function isNotAccepted(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { notAccepted?: unknown }).notAccepted === true;
}

/** The wire form of any thrown value; unknown errors become INTERNAL without leaking their message. */
export function toErrorPayload(err: unknown): ErrorPayload {
  if (err instanceof SwitchboardError || (hasErrorCode(err) && (ErrorCodes as Record<string, string>)[err.code])) {
    const e = err as SwitchboardError;
    const payload: ErrorPayload = { error: e.message, code: e.code };
    if (e.details !== undefined) payload.details = e.details;
    if (e.retryable) payload.retryable = true;
    return payload;
  }
  return { error: 'An internal error occurred; the request was not completed.', code: ErrorCodes.INTERNAL };
}

/** Rebuilds an error from its wire form, for example after a trip over the bus. */
export function fromErrorPayload(payload: ErrorPayload & { retryAfter?: number }): SwitchboardError {
  return new SwitchboardError(payload.code, payload.error, {
    retryable: payload.retryable ?? false,
    ...(payload.details === undefined ? {} : { details: payload.details }),
    ...(payload.retryAfter === undefined ? {} : { retryAfter: payload.retryAfter }),
  });
}
