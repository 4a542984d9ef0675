/** Time zones by IANA name (contract §20's preamble), with what Intl knows of them. */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

const CANONICAL = new Set(Intl.supportedValuesOf('timeZone'));

/**
 * The tz database's names of one word, canonical or links kept for compatibility (its `backward`
 * and `etcetera` files): Intl accepts them in any letter case, so their spelling is checked here.
 */
const ONE_WORD = new Set(
  (
    'UTC UCT GMT GMT0 GMT+0 GMT-0 Greenwich Universal Zulu CET EET MET WET EST MST HST EST5EDT ' +
    'CST6CDT MST7MDT PST8PDT Cuba Egypt Eire GB GB-Eire Hongkong Iceland Iran Israel Jamaica ' +
    'Japan Kwajalein Libya NZ NZ-CHAT Navajo PRC Poland Portugal ROC ROK Singapore Turkey W-SU'
  ).split(' '),
);

/** The first part of every name of more than one part, canonical or link. */
const REGIONS = new Set(
  (
    'Africa America Antarctica Arctic Asia Atlantic Australia Brazil Canada Chile Etc Europe ' +
    'Indian Mexico Pacific US'
  ).split(' '),
);

/** Every canonical and one-word name by its lower case: another case of one is a misspelling. */
const BY_LOWER_CASE = new Map(
  [...CANONICAL, ...ONE_WORD].map((name) => [name.toLowerCase(), name] as const),
);

/**
 * A word of the rest of a tz database name is capitalised (`Buenos`, `Port`), a short
 * abbreviation or one with digits (`GMT+5`) or a lower-case particle inside a name
 * (`Dar_es_Salaam`, `Port-au-Prince`): the spelling of the links that Intl maps to a canonical
 * name (`US/Eastern`, `Asia/Calcutta`), which it accepts in any case.
 */
function spelledAsTzDatabase(name: string): boolean {
  return name.split('/').every((segment) =>
    segment.split(/[_-]/).every((word, i) => {
      if (!/^[A-Za-z0-9+]+$/.test(word)) return false;
      if (/^[A-Z][a-z]/.test(word)) return true;
      if (/^[A-Z0-9+]+$/.test(word)) return word.length <= 4 || /\d/.test(word);
      return i > 0 && /^[a-z]{1,3}$/.test(word);
    }),
  );
}

/** Whether `name` is an IANA zone spelt as the tz database spells it (`Europe/Berlin`, `UTC`). */
export function isTimeZoneName(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    formatterOf(name);
  } catch {
    return false;
  }
  if (CANONICAL.has(name) || ONE_WORD.has(name)) return true;
  if (BY_LOWER_CASE.has(name.toLowerCase())) return false;
  const [region, ...rest] = name.split('/');
  return REGIONS.has(region) && rest.length > 0 && spelledAsTzDatabase(rest.join('/'));
}

/** Date.UTC without its two-digit-year rule (year 50 is 50, not 1950). */
function utcMs0(year: number, monthIndex: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date.getTime();
}

/** The zone's offset from UTC at `utcMs`, in milliseconds. */
function offsetMs(zone: string, utcMs: number): number {
  const whole = Math.floor(utcMs / 1000) * 1000;
  const parts: Record<string, number> = {};
  for (const { type, value } of formatterOf(zone).formatToParts(new Date(whole))) {
    if (type !== 'literal') parts[type] = Number(value);
  }
  const local =
    utcMs0(parts.year, parts.month - 1, parts.day) +
    ((parts.hour * 60 + parts.minute) * 60 + parts.second) * 1000;
  return local - whole;
}

/** The first instant (Unix ms) of the day `YYYY-MM-DD` (`dayOffset` days later) in `zone`. */
export function startOfDayMs(date: string, zone: string, dayOffset = 0): number {
  const [year, month, day] = date.split('-').map(Number);
  const midnight = utcMs0(year, month - 1, day + dayOffset);
  let start = midnight - offsetMs(zone, midnight);
  const corrected = midnight - offsetMs(zone, start);
  if (corrected !== start) start = corrected;
  return start;
}
