/** The contract's error body: one sentence, a stable code, and details where the server has them. */
export interface ErrorBody {
  error: string;
  code: string;
  details?: unknown[];
}

/** An answer of the server other than 2xx, with its error body (`code` is stable: check errors by code). */
export class SwitchboardApiError extends Error {
  override readonly name = 'SwitchboardApiError';
  /** The stable code of the error body, e.g. `VALIDATION_FAILED`, `RATE_LIMITED`; `UNEXPECTED_RESPONSE` when the body was not the contract's. */
  readonly code: string;
  /** The HTTP status. */
  readonly status: number;
  /** The error body as the server sent it. */
  readonly body: ErrorBody;
  /** Seconds from the `Retry-After` header, when the server sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, body: unknown, headers?: Headers) {
    const contract = isErrorBody(body) ? body : { error: `The server answered ${status} with a body that is not an error body: ${String(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 200)}`, code: 'UNEXPECTED_RESPONSE' };
    super(contract.error);
    this.code = contract.code;
    this.status = status;
    this.body = contract;
    const retryAfter = Number(headers?.get('retry-after') ?? Number.NaN);
    this.retryAfterSeconds = Number.isFinite(retryAfter) ? retryAfter : undefined;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).error === 'string' && typeof (body as ErrorBody).code === 'string';
}

/** Whether `err` is an error answer of the server, with `code` when given. */
export function isSwitchboardError(err: unknown, code?: string): err is SwitchboardApiError {
  return err instanceof Error && err.name === 'SwitchboardApiError' && typeof (err as SwitchboardApiError).code === 'string' && (code === undefined || (err as SwitchboardApiError).code === code);
}

/** The data of an openapi-fetch answer, or its error body thrown as a SwitchboardApiError. */
export function unwrap<Data>(result: { data?: Data; error?: unknown; response: Response }): Data {
  if (result.error !== undefined || !result.response.ok) throw new SwitchboardApiError(result.response.status, result.error, result.response.headers);
  return result.data as Data;
}

/**
 * Whether trying the same request again may succeed: no answer at all (the server is away or restarting),
 * 429, or a 5xx. Anything else (a bad request, a missing right) answers the same again.
 */
export function isTransient(err: unknown): boolean {
  if (isSwitchboardError(err)) return err.status === 429 || err.status >= 500;
  // fetch rejects with a TypeError when no answer came (refused, reset, closed by a stopping server).
  return err instanceof TypeError;
}
