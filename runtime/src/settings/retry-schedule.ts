const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The pattern of `CALLBACK_RETRY_SCHEDULE`: 1 to 20 waits, comma-separated, each a whole number of ms (bare), s, m or h. */
export const RETRY_SCHEDULE_PATTERN = '^\\s*[0-9]{1,9}(ms|s|m|h)?(\\s*,\\s*[0-9]{1,9}(ms|s|m|h)?){0,19}\\s*$';

/** The longest single wait (a day): one retry never waits longer. */
const MAX_WAIT_MS = 86_400_000;

/**
 * The waits of a retry schedule, in ms: entry i is the wait before attempt i + 1 after attempt i
 * (the first, before the first attempt, is usually 0), so the schedule's length is the number of
 * attempts. `"0,5s,5m,30m,2h,5h,10h,10h"` is eight attempts over about 28 hours.
 */
export function parseRetrySchedule(text: string): number[] {
  if (!new RegExp(RETRY_SCHEDULE_PATTERN).test(text)) throw new Error(`A retry schedule is 1 to 20 comma-separated waits such as 0,5s,5m,2h; not ${JSON.stringify(text)}.`);
  return text.split(',').map((part) => {
    const [, digits, unit] = /^\s*([0-9]+)(ms|s|m|h)?\s*$/.exec(part)!;
    return Math.min(Number(digits) * UNIT_MS[unit ?? 'ms']!, MAX_WAIT_MS);
  });
}
