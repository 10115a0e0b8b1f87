import { providerError, type SwitchboardError } from '@switchboard/sdk';

/** Requests give up after this long: a hung API must not hold a send (the SDK's own default is 60 s). */
export const REQUEST_TIMEOUT_SECONDS = 15;

/** Postmark's ErrorCode for a message id it does not know (GET /messages/outbound/{id}/details). */
export const MESSAGE_NOT_FOUND = 701;

/** Socket errors named in a message: the SDK keeps the message of a failed request but drops its cause. */
const SOCKET_CODE = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET|ETIMEDOUT|ECONNABORTED)\b/;

/** What the `postmark` SDK's errors carry: the HTTP status (0 when none came) and Postmark's ErrorCode. */
interface PostmarkSdkError {
  readonly message?: string;
  readonly name?: string;
  readonly statusCode?: number;
  readonly code?: number;
}

/** The HTTP status of a Postmark SDK error; undefined when no answer came (network, time-out). */
export function statusOfPostmarkError(err: unknown): number | undefined {
  const status = (err as PostmarkSdkError | null)?.statusCode;
  return typeof status === 'number' && status > 0 ? status : undefined;
}

/** Postmark's ErrorCode (300 invalid email, 406 inactive recipient, 701 no such message…) of an SDK error. */
export function postmarkCodeOf(err: unknown): number | undefined {
  const cause = (err as { cause?: unknown } | null)?.cause ?? err;
  const code = (cause as { postmarkCode?: unknown; code?: unknown } | null)?.postmarkCode ?? (cause as PostmarkSdkError | null)?.code;
  return typeof code === 'number' && code > 0 ? code : undefined;
}

/**
 * A Postmark SDK failure as PROVIDER_ERROR: retryable for 408/429/5xx and network faults, `notAccepted`
 * when Postmark answered or no connection was made. The SDK reports a failed connection with only its
 * message, so the socket code is read back from it (`connect ECONNREFUSED …`).
 */
export function postmarkFailure(err: unknown): SwitchboardError {
  const e = (err ?? {}) as PostmarkSdkError;
  const status = statusOfPostmarkError(err);
  const postmarkCode = typeof e.code === 'number' && e.code > 0 ? e.code : undefined;
  const message = `${e.message ?? String(err)}${postmarkCode === undefined ? '' : ` (ErrorCode ${postmarkCode})`}`;
  const socket = status === undefined ? SOCKET_CODE.exec(e.message ?? '')?.[1] : undefined;
  const cause = Object.assign(new Error(message, { cause: err }), { name: e.name ?? 'PostmarkError', ...(socket ? { code: socket } : {}), ...(postmarkCode ? { postmarkCode } : {}) });
  return providerError('postmark', cause, status);
}
