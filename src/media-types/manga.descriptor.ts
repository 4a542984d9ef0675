import { rawInteger } from '../database/raw-values';
import type { MediaTypeDescriptor } from './media-type.descriptor';

/** Reading time per chapter and per volume in the profile's media_minutes (contract §8). */
const MINUTES_PER_CHAPTER = 8;
const MINUTES_PER_VOLUME = 72;

export const MANGA = {
  name: 'manga',
  scope: 'ratings.manga',
  ownFields: {
    chapters_read: {
      column: 'chapters_read',
      description:
        "Chapters read: at most the title's chapter count when known, else at most 100000.",
    },
    volumes_read: {
      column: 'volumes_read',
      description: "Volumes read: at most the title's volume count when known, else at most 10000.",
    },
    is_rereading: { column: 'is_repeating', description: 'Currently rereading.' },
    times_reread: { column: 'times_repeated', description: 'Number of rereads.' },
    reread_desire: {
      column: 'repeat_desire',
      description: '0 = no interest … 5 = very high interest.',
    },
  },
  counts: [
    { field: 'chapters_read', titleCount: 'chapters', what: 'chapter count', unknownCap: 100000 },
    { field: 'volumes_read', titleCount: 'volumes', what: 'volume count', unknownCap: 10000 },
  ],
  catalogCounts: ['chapters', 'volumes'],
  formats: ['manga', 'novel', 'one_shot', 'manhwa', 'manhua'],
  putExample: {
    status: 'ongoing',
    public_rating: 8,
    chapters_read: 120,
    volumes_read: 13,
    is_rereading: false,
    priority: 2,
  },
  // The examples are the profile example of docs/api.md: 8 × 200 + 72 × 20 minutes.
  statistics: {
    verb: 'read',
    ongoing: 'reading',
    examples: [1, 1, 0, 0, 0, 80],
    sums: {
      chapters: {
        description: 'Sum of chapters_read',
        example: 200,
        of: (row) => rawInteger(row?.chapters),
      },
      volumes: {
        description: 'Sum of volumes_read',
        example: 20,
        of: (row) => rawInteger(row?.volumes),
      },
      reread: {
        description: 'Sum of times_reread',
        example: 0,
        of: (row) => rawInteger(row?.repeats),
      },
      media_minutes: {
        description: `${MINUTES_PER_CHAPTER} × chapters + ${MINUTES_PER_VOLUME} × volumes`,
        example: 3040,
        of: (row) =>
          MINUTES_PER_CHAPTER * rawInteger(row?.chapters) +
          MINUTES_PER_VOLUME * rawInteger(row?.volumes),
      },
    },
  },
  history: { progress: ['chapters_read', 'volumes_read'], repeating: 'is_rereading' },
  mal: {
    exportType: 2,
    entryElement: 'manga',
    idElement: 'manga_mangadb_id',
    titleElement: 'manga_title',
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
    statusNames: { ongoing: 'Reading', bookmark: 'Plan to Read' },
    titleCounts: { manga_volumes: 'volumes', manga_chapters: 'chapters' },
    progress: [
      { element: 'my_read_chapters', field: 'chapters_read' },
      { element: 'my_read_volumes', field: 'volumes_read' },
    ],
    times: { element: 'my_times_read', field: 'times_reread' },
    repeating: { element: 'my_rereading', field: 'is_rereading', written: ['YES', 'NO'] },
    desire: { element: 'my_reread_value', field: 'reread_desire' },
    fixed: { my_scanalation_group: '', my_retail_volumes: 0 },
    cdata: ['my_scanalation_group'],
  },
} as const satisfies MediaTypeDescriptor<'manga'>;
