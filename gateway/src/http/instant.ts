/**
 * RFC 3339 `date-time` (section 5.6) with an offset of hours and minutes, or Z; a fraction of any
 * length. The date and time fields are range-checked below, not by the pattern.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** The first and last instants a four-digit UTC year spells: what the stores compare and keep. */
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysIn = (year: number, month: number) => (month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);

/**
 * Whether `text` names a real instant: an RFC 3339 date-time whose day exists in its month (no
 * February 30), whose second is 0–59 (a leap second, 60, is no instant a Date or the stores can
 * hold), whose offset is ±hh:mm within a day, and whose UTC time falls in years 0001–9999.
 * Every date-time input is checked with it (the `date-time` format), so a handler can trust
 * `new Date(text)`.
 */
export function isInstant(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = m.slice(1).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!)) return false;
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHours > 23 || offsetMinutes > 59) return false;
  const at = Date.parse(text);
  return Number.isFinite(at) && at >= EARLIEST && at <= LATEST;
}
