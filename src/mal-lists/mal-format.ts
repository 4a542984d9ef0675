import type { MediaType } from '../common/media-type';
import type { RatingStatus } from '../ratings/rating-entry.entity';

/**
 * The MyAnimeList XML export format as decisions §13 maps it: element names per list type and the
 * value tables, in both directions.
 */
export const MAL_FORMAT = {
  anime: {
    exportType: 1,
    entryElement: 'anime',
    idElement: 'series_animedb_id',
    fileName: 'animelist.xml',
    /** Every element of an entry, in the order an export writes them. */
    elements: [
      'series_animedb_id',
      'series_title',
      'series_type',
      'series_episodes',
      'my_id',
      'my_watched_episodes',
      'my_start_date',
      'my_finish_date',
      'my_rated',
      'my_score',
      'my_storage',
      'my_storage_value',
      'my_status',
      'my_comments',
      'my_times_watched',
      'my_rewatch_value',
      'my_priority',
      'my_tags',
      'my_rewatching',
      'my_rewatching_ep',
      'my_discuss',
      'my_sns',
      'update_on_import',
    ],
    totals: {
      all: 'user_total_anime',
      ongoing: 'user_total_watching',
      completed: 'user_total_completed',
      on_hold: 'user_total_onhold',
      dropped: 'user_total_dropped',
      bookmark: 'user_total_plantowatch',
    },
  },
  manga: {
    exportType: 2,
    entryElement: 'manga',
    idElement: 'manga_mangadb_id',
    fileName: 'mangalist.xml',
    elements: [
      'manga_mangadb_id',
      'manga_title',
      'manga_volumes',
      'manga_chapters',
      'my_id',
      'my_read_volumes',
      'my_read_chapters',
      'my_start_date',
      'my_finish_date',
      'my_scanalation_group',
      'my_score',
      'my_storage',
      'my_retail_volumes',
      'my_status',
      'my_comments',
      'my_times_read',
      'my_tags',
      'my_priority',
      'my_reread_value',
      'my_rereading',
      'my_discuss',
      'my_sns',
      'update_on_import',
    ],
    totals: {
      all: 'user_total_manga',
      ongoing: 'user_total_reading',
      completed: 'user_total_completed',
      on_hold: 'user_total_onhold',
      dropped: 'user_total_dropped',
      bookmark: 'user_total_plantoread',
    },
  },
} as const satisfies Record<MediaType, unknown>;

/** Elements whose text an export writes as CDATA. */
export const CDATA_ELEMENTS: ReadonlySet<string> = new Set([
  'series_title',
  'manga_title',
  'my_comments',
  'my_tags',
  'my_scanalation_group',
]);

export type ExportedStatus = Exclude<RatingStatus, 'not_interested'>;

export function malStatusOf(mediaType: MediaType, status: ExportedStatus): string {
  switch (status) {
    case 'ongoing':
      return mediaType === 'anime' ? 'Watching' : 'Reading';
    case 'completed':
      return 'Completed';
    case 'on_hold':
      return 'On-Hold';
    case 'dropped':
      return 'Dropped';
    case 'bookmark':
      return mediaType === 'anime' ? 'Plan to Watch' : 'Plan to Read';
    default: {
      const unknown: never = status;
      throw new Error(`unmapped status ${String(unknown)}`);
    }
  }
}

const STATUS_BY_MAL: Record<string, RatingStatus> = {
  watching: 'ongoing',
  reading: 'ongoing',
  '1': 'ongoing',
  completed: 'completed',
  '2': 'completed',
  'on-hold': 'on_hold',
  'on hold': 'on_hold',
  '3': 'on_hold',
  dropped: 'dropped',
  '4': 'dropped',
  'plan to watch': 'bookmark',
  'plan to read': 'bookmark',
  '6': 'bookmark',
};

/** undefined when the table does not map the value. */
export function statusOfMal(value: string): RatingStatus | undefined {
  return STATUS_BY_MAL[value.trim().toLowerCase()];
}

const DESIRES = ['', 'Very Low', 'Low', 'Medium', 'High', 'Very High'];

export function malDesireOf(desire: number): string {
  return DESIRES[desire] ?? '';
}

export function desireOfMal(value: string): number | undefined {
  const text = value.trim();
  if (/^[0-5]$/.test(text)) return Number(text);
  const index = DESIRES.findIndex((name) => name.toLowerCase() === text.toLowerCase());
  return index === -1 ? undefined : index;
}

export function malPriorityOf(priority: number): string {
  return priority === 0 ? 'Low' : priority === 1 ? 'Medium' : 'High';
}

const PRIORITY_BY_MAL: Record<string, number> = { low: 0, medium: 1, high: 2 };

export function priorityOfMal(value: string): number | undefined {
  return PRIORITY_BY_MAL[value.trim().toLowerCase()];
}

export const NO_DATE = '0000-00-00';
