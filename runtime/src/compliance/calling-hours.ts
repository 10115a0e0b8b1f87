import { DateTime } from 'luxon';
import type { ContactRules, LocalInterval, Weekday } from './contact-rules.js';

/** Whether a recipient may be contacted now, and if not, when they may be. */
export type CallingWindow = { readonly open: true } | { readonly open: false; readonly opensAt: Date | undefined };

/** How far ahead the next allowed time is looked for: a week and a day covers every weekly rule. */
const LOOKAHEAD_DAYS = 8;

type Span = readonly [start: number, end: number];

/**
 * Whether `at` falls in the allowed hours of every one of the recipient's time zones (a number that
 * spans several uses the strictest: the hours all of them allow), and otherwise the next instant
 * that does, or undefined when the rules allow none within a week.
 */
export function callingWindow(at: Date, zones: readonly string[], rules: ContactRules): CallingWindow {
  // Most rules open again within a day: look that far first, a week only when they do not.
  return windowWithin(at.getTime(), zones, rules, 1) ?? windowWithin(at.getTime(), zones, rules, LOOKAHEAD_DAYS) ?? { open: false, opensAt: undefined };
}

function windowWithin(now: number, zones: readonly string[], rules: ContactRules, days: number): CallingWindow | undefined {
  const allowed = zones.map((zone) => allowedSpans(now, zone, rules, days)).reduce(intersect);
  const next = allowed.find(([, end]) => end > now);
  if (!next) return undefined;
  return next[0] <= now ? { open: true } : { open: false, opensAt: new Date(next[0]) };
}

/** Spans already worked out, per rules, zone and local day: Luxon's zone arithmetic is the cost here. */
const known = new WeakMap<ContactRules, Map<string, Span[]>>();
const KNOWN_PER_RULES = 2_000;

/** The allowed hours in one zone from the day before `now` to `days` after, as UTC milliseconds. */
function allowedSpans(now: number, zone: string, rules: ContactRules, days: number): Span[] {
  const today = DateTime.fromMillis(now, { zone });
  if (!today.isValid) throw new Error(`Unknown time zone ${zone}.`);
  let byDay = known.get(rules);
  if (!byDay) known.set(rules, (byDay = new Map()));
  const key = `${zone} ${today.toISODate()} ${days}`;
  let spans = byDay.get(key);
  if (spans) return spans;
  spans = [];
  for (let offset = -1; offset <= days; offset += 1) {
    const day = today.plus({ days: offset });
    for (const interval of rules.hours[day.weekday as Weekday]) spans.push(toSpan(day, zone, interval));
  }
  byDay.set(key, spans);
  if (byDay.size > KNOWN_PER_RULES) byDay.delete(byDay.keys().next().value!);
  return spans;
}

function toSpan({ year, month, day }: DateTime, zone: string, [from, to]: LocalInterval): Span {
  const at = (hhmm: string) => {
    const [hour, minute] = hhmm.split(':').map(Number) as [number, number];
    return DateTime.fromObject({ year, month, day, hour, minute }, { zone }).toMillis();
  };
  return [at(from), at(to)];
}

/** The overlap of two sorted lists of disjoint spans. */
function intersect(a: Span[], b: Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i]![0], b[j]![0]);
    const end = Math.min(a[i]![1], b[j]![1]);
    if (start < end) out.push([start, end]);
    if (a[i]![1] < b[j]![1]) i += 1;
    else j += 1;
  }
  return out;
}
