/** An entry's status (contract §6), the same words for every media type. */
export const RATING_STATUSES = [
  'ongoing',
  'completed',
  'on_hold',
  'dropped',
  'not_interested',
  'bookmark',
] as const;
export type RatingStatus = (typeof RATING_STATUSES)[number];
