import { isSwitchboardError } from './errors.js';

/** How long to wait before trying again after the `attempt`-th failure in a row: Retry-After, else doubling from 250 ms up to `capMs`. */
export function retryDelayMs(err: unknown, attempt: number, capMs: number): number {
  const hinted = isSwitchboardError(err) ? err.retryAfterSeconds : undefined;
  if (hinted !== undefined) return Math.min(hinted * 1000, capMs);
  return Math.min(250 * 2 ** Math.max(0, attempt - 1), capMs);
}

/** Waits `ms` (no Node.js API, so the client runs in any fetch runtime); false when `signal` aborted first. */
export function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (completed: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      resolve(completed);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
