/**
 * The simulated providers' clock: the real time plus an offset a test moves forward
 * (`POST /_sim/clock`), so a day-long rule such as WhatsApp's service window is seen closing at once.
 */
export class SimClock {
  #offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.#offsetMs);
  }

  /** How far ahead of the real time the clock is. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Moves the clock forward by `ms` (never back: time the providers saw stays seen); returns the new time. */
  advance(ms: number): Date {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advanceMs must be a number >= 0, got ${ms}`);
    this.#offsetMs += ms;
    return this.now();
  }

  reset(): void {
    this.#offsetMs = 0;
  }
}
