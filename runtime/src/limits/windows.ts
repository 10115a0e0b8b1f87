/** Fixed UTC windows limits count in. */
export type Window = 'minute' | 'hour' | 'day' | 'month';

/** Start and end of the fixed window holding `now`. */
export function windowBounds(window: Window, now = Date.now()): { start: number; end: number } {
  const d = new Date(now);
  switch (window) {
    case 'minute':
      return { start: now - (now % 60_000), end: now - (now % 60_000) + 60_000 };
    case 'hour':
      return { start: now - (now % 3_600_000), end: now - (now % 3_600_000) + 3_600_000 };
    case 'day': {
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      return { start, end: start + 86_400_000 };
    }
    case 'month':
      return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
  }
}
