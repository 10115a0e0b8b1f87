import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { errorResult } from './errors.js';
import type { HttpResult } from './types.js';

/**
 * How long a client may take and how many connections one address may hold (the HTTP_* settings).
 * uWS fixes its own header and idle time-outs at 10 s; see docs/configuration.md for what each adapter honours.
 */
export interface ConnectionLimits {
  /** From the connection's open, or the end of the previous response, until a request's headers have arrived. */
  readonly headersTimeoutMs: number;
  /** From the start of a request until its body has arrived; a response, however long it streams, is not counted. */
  readonly requestTimeoutMs: number;
  /** A keep-alive connection with no request in progress is closed after this long. */
  readonly idleTimeoutMs: number;
  /** Connections one peer address may hold open at once; 0: no cap. */
  readonly maxConnectionsPerAddress: number;
}

/** The settings' defaults, for listeners started without settings (tests, the deploy's probe). */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 10_000,
  maxConnectionsPerAddress: 1000,
};

/** Open connections per peer address, refusing one past the cap. */
export class AddressCounts {
  readonly #open = new Map<string, number>();
  readonly #max: number;

  /** `max` 0: no cap. */
  constructor(max: number) {
    this.#max = max;
  }

  /** Counts one more connection from `address`; false, and nothing counted, when the address is at the cap. */
  admit(address: string): boolean {
    const open = this.#open.get(address) ?? 0;
    if (this.#max > 0 && open >= this.#max) return false;
    this.#open.set(address, open + 1);
    return true;
  }

  /** One connection from `address` closed. */
  release(address: string): void {
    const open = this.#open.get(address) ?? 0;
    if (open <= 1) this.#open.delete(address);
    else this.#open.set(address, open - 1);
  }
}

/** The answer on a connection past the per-address cap; the connection closes after it. */
export function tooManyConnections(max: number): HttpResult {
  return errorResult(
    new SwitchboardError(ErrorCodes.RATE_LIMITED, `Too many open connections from this address (at most ${max}); close some and retry.`, { retryAfter: 1 }),
  );
}

/** The answer to a request whose head or body did not arrive in time; the connection closes after it. */
export function tooSlow(): HttpResult {
  return { status: 408, body: { error: 'The request took too long to arrive.', code: ErrorCodes.BAD_REQUEST } };
}
