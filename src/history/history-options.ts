import { FieldError, ProblemException, PROBLEMS } from '../common/problem';

/** The options of the history reads (contract §20). */
export interface HistoryOptions {
  /** As given; null: the default. */
  limit: number | null;
  /** As given (a positive integer below 2^63). */
  before: string | null;
  from: string | null;
  to: string | null;
}

export const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** Event ids are ints: a `before` above them all keeps every event. */
export const ABOVE_EVERY_ID = 2 ** 31;

function isCalendarDate(raw: string): boolean {
  if (!/^\d{4}-\d\d-\d\d$/.test(raw)) return false;
  const date = new Date(`${raw}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === raw;
}

function dateOption(
  query: Record<string, unknown>,
  name: 'from' | 'to',
  errors: FieldError[],
): string | null {
  const raw = query[name];
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !isCalendarDate(raw)) {
    errors.push({ field: name, message: 'must be a calendar date YYYY-MM-DD' });
    return null;
  }
  return raw;
}

/** Every offending option named at once (contract §3). */
export function parseHistoryOptions(query: Record<string, unknown>): HistoryOptions {
  const errors: FieldError[] = [];
  const options: HistoryOptions = { limit: null, before: null, from: null, to: null };
  if (query.limit !== undefined) {
    const raw = query.limit;
    if (typeof raw === 'string' && /^\d{1,4}$/.test(raw) && +raw >= 1 && +raw <= MAX_LIMIT) {
      options.limit = Number(raw);
    } else {
      errors.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
    }
  }
  if (query.before !== undefined) {
    const raw = query.before;
    if (
      typeof raw === 'string' &&
      /^\d{1,19}$/.test(raw) &&
      BigInt(raw) >= 1n &&
      BigInt(raw) < 2n ** 63n
    ) {
      options.before = String(BigInt(raw));
    } else {
      errors.push({
        field: 'before',
        message: 'must be an event id (a positive integer below 2^63)',
      });
    }
  }
  options.from = dateOption(query, 'from', errors);
  options.to = dateOption(query, 'to', errors);
  if (options.from !== null && options.to !== null && options.from > options.to) {
    errors.push(
      { field: 'from', message: `must not be after to (${options.to})` },
      { field: 'to', message: `must not be before from (${options.from})` },
    );
  }
  if (errors.length > 0) throw ProblemException.validation(errors, PROBLEMS.invalidParameter);
  return options;
}

/** `before` as a bound on event ids. */
export function beforeBound(options: HistoryOptions): number | null {
  if (options.before === null) return null;
  const before = BigInt(options.before);
  return before >= BigInt(ABOVE_EVERY_ID) ? ABOVE_EVERY_ID : Number(before);
}

/** The query of the page after the event `lastId`: the other options kept. */
export function nextPageQuery(
  options: HistoryOptions,
  lastId: number,
  useExternalId: boolean | undefined,
): string {
  const parts: string[] = [];
  if (options.limit !== null) parts.push(`limit=${options.limit}`);
  if (options.from !== null) parts.push(`from=${options.from}`);
  if (options.to !== null) parts.push(`to=${options.to}`);
  if (useExternalId !== undefined) parts.push(`use_external_id=${useExternalId}`);
  parts.push(`before=${lastId}`);
  return parts.join('&');
}

const MAX_EVENT_ID = 2n ** 63n;

/** `{event_id}` of a path: 400 unless a positive integer below 2^63; null when above every id. */
export function parseEventId(raw: string): number | null {
  if (!/^\d{1,19}$/.test(raw) || BigInt(raw) < 1n || BigInt(raw) >= MAX_EVENT_ID) {
    throw ProblemException.validation(
      [{ field: 'event_id', message: 'must be a positive integer below 2^63' }],
      PROBLEMS.invalidParameter,
    );
  }
  return BigInt(raw) >= BigInt(ABOVE_EVERY_ID) ? null : Number(raw);
}
