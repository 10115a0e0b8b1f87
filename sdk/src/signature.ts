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

/** Wraps a provider SDK failure in PROVIDER_ERROR, retryable for 408/429/5xx and network faults. */
export function providerError(provider: string, err: unknown, status?: number): SwitchboardError {
  const code = status ?? statusOf(err);
  const retryable = code === undefined ? true : code === 408 || code === 429 || code >= 500;
  const detail = err instanceof Error ? err.message : String(err);
  return new SwitchboardError(
    ErrorCodes.PROVIDER_ERROR,
    `${provider} refused the request${code === undefined ? '' : ` (HTTP ${code})`}: ${detail}`,
    { cause: err, retryable },
  );
}

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const candidate = (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
  return typeof candidate === 'number' ? candidate : undefined;
}
