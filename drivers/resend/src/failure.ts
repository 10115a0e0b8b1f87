import { ErrorCodes, SwitchboardError, providerError } from '@switchboard/sdk';
import type { ErrorResponse } from 'resend';

// Resend's documented error names and their HTTP statuses, for error bodies that omit statusCode.
const STATUS_OF_NAME: Readonly<Record<string, number>> = {
  missing_required_field: 422,
  validation_error: 422,
  invalid_parameter: 422,
  invalid_from_address: 422,
  invalid_attachment: 422,
  invalid_idempotency_key: 400,
  invalid_region: 400,
  missing_api_key: 401,
  invalid_api_key: 403,
  restricted_api_key: 401,
  invalid_access: 403,
  security_error: 451,
  not_found: 404,
  method_not_allowed: 405,
  invalid_idempotent_request: 409,
  concurrent_idempotent_requests: 409,
  rate_limit_exceeded: 429,
  daily_quota_exceeded: 429,
  monthly_quota_exceeded: 429,
  internal_server_error: 500,
};

/** Requests give up after this long; a hung API must not hold a send forever (the SDK sets no timeout). */
export const REQUEST_TIMEOUT_MS = 15_000;

/** The HTTP status behind a Resend error; undefined when the request never got an answer (network, timeout). */
export function statusOfResendError(error: ErrorResponse): number | undefined {
  if (typeof error.statusCode === 'number') return error.statusCode;
  return STATUS_OF_NAME[error.name];
}

/**
 * A Resend SDK error result as PROVIDER_ERROR (retryable for 408/429/5xx and network faults). With no
 * answer, `socketError` (see connection.ts) says whether a connection was ever made: a refused one is
 * provably not accepted.
 */
export function resendFailure(error: ErrorResponse, socketError?: string): SwitchboardError {
  const status = statusOfResendError(error);
  const cause = Object.assign(new Error(`${error.message || error.name}${status === undefined && socketError ? ` (${socketError})` : ''}`), {
    name: error.name,
    ...(status === undefined && socketError ? { code: socketError } : {}),
  });
  return providerError('resend', cause, status);
}

/**
 * A refused fetch of a received email. Our own key being refused (401/403) is fixable by the operator,
 * so it stays retryable and the provider keeps the event; any other 4xx says the event names an email
 * Resend will never hand out, so no retry can help.
 */
export function fetchFailure(error: ErrorResponse): SwitchboardError {
  const failure = resendFailure(error);
  const status = statusOfResendError(error);
  if (status !== 401 && status !== 403) return failure;
  return new SwitchboardError(ErrorCodes.PROVIDER_ERROR, failure.message, { cause: failure.cause, retryable: true });
}
