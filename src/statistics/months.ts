import { startOfDayMs } from '../settings/time-zone';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM`: the month of the instant `ms` in `zone`. */
export function monthIn(zone: string, ms: number): string {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  const parts = Object.fromEntries(
    formatter.formatToParts(new Date(ms)).map(({ type, value }) => [type, Number(value)]),
  );
  return `${String(parts.year).padStart(4, '0')}-${String(parts.month).padStart(2, '0')}`;
}

/** The month `offset` months after `month` (`YYYY-MM`; negative: before). */
export function addMonths(month: string, offset: number): string {
  const [year, monthNumber] = month.split('-').map(Number);
  const index = year * 12 + (monthNumber - 1) + offset;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/**
 * The `count` months of `zone` that end with the one holding `nowMs`, oldest first, each with
 * the instant it starts (Unix ms), and the instant the newest ends.
 */
export function lastMonths(
  zone: string,
  nowMs: number,
  count: number,
): { months: string[]; starts: number[]; end: number } {
  const current = monthIn(zone, nowMs);
  const months = Array.from({ length: count }, (_, i) => addMonths(current, i - count + 1));
  return {
    months,
    starts: months.map((month) => startOfDayMs(`${month}-01`, zone)),
    end: startOfDayMs(`${addMonths(current, 1)}-01`, zone),
  };
}
