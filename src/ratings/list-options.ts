import type { FastifyReply } from 'fastify';
import { FieldError, ProblemException, PROBLEMS } from '../common/problem';
import { RATING_STATUSES, RatingStatus } from '../media-types/rating-status';

/** The options of GET all (contract §11); none given: the whole list. */
export interface ListOptions {
  /** Sorted, without repeats. */
  statuses: RatingStatus[] | null;
  limit: number | null;
  after: number | null;
}

/** A page of a list read with ListOptions; `hasMore` when entries remain after it. */
export interface ListPage<Entry> {
  entries: Entry[];
  hasMore: boolean;
}

const MAX_LIMIT = 1000;
const MAX_ID = 2 ** 31 - 1;

/** Every offending parameter named at once (contract §3). */
export function parseListOptions(query: Record<string, unknown>): ListOptions {
  const errors: FieldError[] = [];
  const options: ListOptions = { statuses: null, limit: null, after: null };

  if (query.status !== undefined) {
    const values = typeof query.status === 'string' ? query.status.split(',') : [];
    if (
      values.length === 0 ||
      values.some((v) => !(RATING_STATUSES as readonly string[]).includes(v))
    ) {
      errors.push({
        field: 'status',
        message: `must be one or more of ${RATING_STATUSES.join(', ')}, separated by commas`,
      });
    } else {
      options.statuses = [...new Set(values as RatingStatus[])].sort();
    }
  }
  if (query.limit !== undefined) {
    const limit = integerIn(query.limit, 1, MAX_LIMIT);
    if (limit === null) {
      errors.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
    }
    options.limit = limit;
  }
  if (query.after !== undefined) {
    const after = integerIn(query.after, 1, MAX_ID);
    if (after === null) {
      errors.push({
        field: 'after',
        message: 'must be a title id (a positive integer below 2^31)',
      });
    } else if (query.limit === undefined) {
      errors.push({ field: 'after', message: 'needs limit' });
    }
    options.after = after;
  }
  if (errors.length > 0) throw ProblemException.validation(errors, PROBLEMS.invalidParameter);
  return options;
}

function integerIn(raw: unknown, min: number, max: number): number | null {
  if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw)) return null;
  const value = Number(raw);
  return value >= min && value <= max ? value : null;
}

/** The query of the page after `lastId`, in a stable order. */
export function nextPageQuery(options: ListOptions, lastId: number): string {
  const parts: string[] = [];
  if (options.statuses) parts.push(`status=${options.statuses.join(',')}`);
  parts.push(`limit=${options.limit}`, `after=${lastId}`);
  return parts.join('&');
}

/**
 * The entries of `page`, after giving the reply the next page's `Link: <path?query>; rel="next"`
 * while entries remain, or removing it on the last page.
 */
export function withNextPageLink<Entry extends { id: number }>(
  reply: FastifyReply,
  path: string,
  options: ListOptions,
  { entries, hasMore }: ListPage<Entry>,
): Entry[] {
  if (hasMore) {
    const next = `${path}?${nextPageQuery(options, entries[entries.length - 1].id)}`;
    void reply.header('Link', `<${next}>; rel="next"`);
  } else {
    reply.removeHeader('Link');
  }
  return entries;
}
