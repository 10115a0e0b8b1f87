/** Reporting periods of usage and billing. */
export type Period = 'today' | 'week' | 'month' | 'all';

/** Start of a reporting period in UTC: today's midnight, Monday of this ISO week, the 1st of this month, or the epoch. */
export function periodStart(period: Period, now = new Date()): Date {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  switch (period) {
    case 'today':
      return new Date(day);
    case 'week':
      return new Date(day - ((now.getUTCDay() + 6) % 7) * 86_400_000);
    case 'month':
      return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    case 'all':
      return new Date(0);
  }
}
