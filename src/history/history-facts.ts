import type { MediaType } from '../media-types/media-type';
import type { RatingView } from '../media-types';
import { byMediaType, descriptorOf } from '../media-types';
import type { EntryFacts } from './viewing-rules';

/** Each media type's progress fields and rewatch flag, by API name (its descriptor's `history`). */
export const HISTORY_FIELDS = byMediaType((descriptor) => descriptor.history);

/** Every progress field of any media type: each has a pair of columns in `history_events`. */
export const PROGRESS_COLUMNS = [
  ...new Set(Object.values(HISTORY_FIELDS).flatMap(({ progress }) => progress)),
];

type Fields = Record<string, unknown>;

export function scoreOf(entry: RatingView): number {
  return entry.public_rating * 10 + entry.public_fraction;
}

/** The fields of an entry (a view, contract §7) that the viewing rules read. */
export function factsOf(mediaType: MediaType, entry: RatingView): EntryFacts {
  const { progress, repeating } = descriptorOf(mediaType).history;
  const fields = entry as unknown as Fields;
  const values = progress.map((field) => Number(fields[field] ?? 0));
  return {
    status: entry.status,
    progress: values.find((value) => value !== 0) ?? 0,
    score: scoreOf(entry),
    repeating: fields[repeating] === true,
    startDate: entry.start_date,
    endDate: entry.end_date,
    createdAt: entry.created_at,
    updatedAt: entry.updated_at,
  };
}

/** The value of a progress field of an entry. */
export function progressValue(entry: RatingView, field: string): number {
  return Number((entry as unknown as Fields)[field] ?? 0);
}

/** Whether the rewatch flag of the entry is set. */
export function repeatingOf(mediaType: MediaType, entry: RatingView): boolean {
  return (entry as unknown as Fields)[HISTORY_FIELDS[mediaType].repeating] === true;
}
