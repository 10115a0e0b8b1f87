import { createHmac, timingSafeEqual } from 'node:crypto';
import { SwitchboardError, ErrorCodes } from './errors.js';

/** Compares two strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** Base64 HMAC-SHA256 of `data` under `secret`. */
export function hmacSha256Base64(secret: string | Buffer, data: string | Buffer): string {
  return createHmac('sha256', secret).update(data).digest('base64');
}

/** The first present header among `names` (lower-case lookup), else undefined. */
export function headerValue(headers: Readonly<Record<string, string>>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = headers[name.toLowerCase()];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** The error a driver throws when a webhook signature is missing or wrong. */
export function signatureError(provider: string, reason: string, cause?: unknown): SwitchboardError {
  return new SwitchboardError(ErrorCodes.SIGNATURE_INVALID, `The ${provider} signature ${reason}.`, { cause });
}

/** The error a driver throws when a verified webhook body is not the provider's shape. */
export function malformedPayload(provider: string, reason: string, cause?: unknown): SwitchboardError {
  return new SwitchboardError(ErrorCodes.MALFORMED_PAYLOAD, `The ${provider} webhook body ${reason}.`, { cause });
}

/**
 * Wraps a provider SDK failure in PROVIDER_ERROR, retryable for 408/429/5xx and network faults. It is
 * `notAccepted` when the provider answered with an HTTP status (it said no) or no connection was made
 * (refused, no such host, a TLS failure before the request): what lets a send go to another provider.
 */
export function providerError(provider: string, err: unknown, status?: number): SwitchboardError {
  const code = status ?? statusOf(err);
  const retryable = code === undefined ? true : code === 408 || code === 429 || code >= 500;
  const detail = err instanceof Error ? err.message : String(err);
  return new SwitchboardError(
    ErrorCodes.PROVIDER_ERROR,
    `${provider} refused the request${code === undefined ? '' : ` (HTTP ${code})`}: ${detail}`,
    { cause: err, retryable, notAccepted: code !== undefined || neverConnected(err) },
  );
}

/** Socket errors that happen before a request is written: the provider cannot have received it. */
const BEFORE_REQUEST = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);

/** Whether an error (or one it wraps, as axios and fetch wrap socket errors) says no connection was made. */
function neverConnected(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && BEFORE_REQUEST.has(code)) return true;
  const { cause, errors } = err as { cause?: unknown; errors?: unknown };
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => neverConnected(e, depth + 1))) return true;
  return neverConnected(cause, depth + 1);
}

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const candidate = (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
  return typeof candidate === 'number' ? candidate : undefined;
}
