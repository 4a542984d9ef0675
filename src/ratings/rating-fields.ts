import type { MediaType } from '../common/media-type';
import type { RatingEntry } from './rating-entry.entity';
import type { PutRatingDto } from './dto/put-rating.dto';

export type EntryFields = Omit<
  RatingEntry,
  'id' | 'userId' | 'mediaType' | 'titleId' | 'createdAt' | 'updatedAt' | 'revision'
>;

const COMMON_FIELDS = {
  status: 'status',
  is_visible: 'isVisible',
  public_rating: 'publicRating',
  public_fraction: 'publicFraction',
  personal_rating: 'personalRating',
  start_date: 'startDate',
  end_date: 'endDate',
  notes: 'notes',
  priority: 'priority',
} as const satisfies Record<string, keyof EntryFields>;

/** API field name -> entity property, per media type (rewatch and reread share columns). */
export const API_FIELDS = {
  anime: {
    ...COMMON_FIELDS,
    episodes_watched: 'episodesWatched',
    is_rewatching: 'isRepeating',
    times_rewatched: 'timesRepeated',
    rewatch_desire: 'repeatDesire',
  },
  manga: {
    ...COMMON_FIELDS,
    chapters_read: 'chaptersRead',
    volumes_read: 'volumesRead',
    is_rereading: 'isRepeating',
    times_reread: 'timesRepeated',
    reread_desire: 'repeatDesire',
  },
} as const satisfies Record<MediaType, Record<string, keyof EntryFields>>;

/** Defaults on create (decisions §6); `status` is always sent. */
export const ENTRY_DEFAULTS: Omit<EntryFields, 'status'> = {
  isVisible: true,
  publicRating: 0,
  publicFraction: 0,
  personalRating: 0,
  episodesWatched: 0,
  chaptersRead: 0,
  volumesRead: 0,
  startDate: null,
  endDate: null,
  isRepeating: false,
  timesRepeated: 0,
  repeatDesire: 0,
  notes: '',
  priority: 0,
};

/** The fields a PUT body sets; omitted ones are absent, so an update keeps them. */
export function changesFrom(mediaType: MediaType, body: PutRatingDto): Partial<EntryFields> {
  const changes: Record<string, unknown> = {};
  const sent = body as unknown as Record<string, unknown>;
  for (const [apiName, property] of Object.entries(API_FIELDS[mediaType])) {
    if (sent[apiName] !== undefined) changes[property] = sent[apiName];
  }
  return changes;
}
