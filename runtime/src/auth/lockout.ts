export interface LockoutOptions {
  /** Failures within the window that lock an address out. */
  attempts: number;
  windowMs: number;
  lockMs: number;
  /** Most addresses tracked at once; the oldest are dropped beyond it. */
  maxTracked?: number;
}

interface Tracker {
  failures: number[];
  lockedUntil: number;
}

/**
 * Counts failed authentications per client address and locks out an address that fails too often.
 * A lock refuses only wrong tokens (the gateway still checks every token, and a correct one passes):
 * many clients may share an address behind a NAT or a proxy, and one of them guessing must not shut
 * the others out. A failure while locked is not counted, so the lock is not extended by the guesser.
 */
export class AuthLockout {
  readonly #trackers = new Map<string, Tracker>();

  constructor(
    private readonly options: LockoutOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the address may try again, or 0 when it is not locked out. */
  retryAfter(address: string): number {
    const tracker = this.#trackers.get(address);
    if (!tracker) return 0;
    const left = tracker.lockedUntil - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  fail(address: string): void {
    const now = this.now();
    const tracker = this.#trackers.get(address) ?? { failures: [], lockedUntil: 0 };
    if (tracker.lockedUntil > now) return;
    tracker.failures = tracker.failures.filter((t) => now - t < this.options.windowMs);
    tracker.failures.push(now);
    if (tracker.failures.length >= this.options.attempts) {
      tracker.lockedUntil = now + this.options.lockMs;
      tracker.failures = [];
    }
    this.#trackers.delete(address);
    this.#trackers.set(address, tracker);
    const max = this.options.maxTracked ?? 100_000;
    if (this.#trackers.size > max) this.#trackers.delete(this.#trackers.keys().next().value as string);
  }

  succeed(address: string): void {
    const tracker = this.#trackers.get(address);
    if (tracker && tracker.lockedUntil <= this.now()) this.#trackers.delete(address);
  }
}
