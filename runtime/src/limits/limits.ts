import type { Settings } from '../settings/schema.js';

/** Per-agent limits; null means no limit. Spend is in USD. */
export interface Limits {
  actionsPerMinute: number | null;
  actionsPerHour: number | null;
  actionsPerDay: number | null;
  spendPerDay: number | null;
  spendPerMonth: number | null;
  callsPerDayToSameNumber: number | null;
}

/** The defaults every agent gets, from settings (0 means no limit). */
export function defaultLimits(settings: Settings): Limits {
  const value = (n: number) => (n > 0 ? n : null);
  return {
    actionsPerMinute: value(settings.LIMIT_ACTIONS_PER_MINUTE),
    actionsPerHour: value(settings.LIMIT_ACTIONS_PER_HOUR),
    actionsPerDay: value(settings.LIMIT_ACTIONS_PER_DAY),
    spendPerDay: value(settings.LIMIT_SPEND_PER_DAY_USD),
    spendPerMonth: value(settings.LIMIT_SPEND_PER_MONTH_USD),
    callsPerDayToSameNumber: value(settings.LIMIT_CALLS_PER_DAY_TO_SAME_NUMBER),
  };
}

/** Defaults with an agent's overrides laid over them (an override of null lifts that limit). */
export function effectiveLimits(defaults: Limits, overrides: Partial<Limits>): Limits {
  return { ...defaults, ...overrides };
}
