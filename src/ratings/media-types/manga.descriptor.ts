import { rawInteger } from '../../database/raw-values';
import { MangaStatistics } from '../../profile/profile.dto';
import { PublicMangaRatingView } from '../dto/public-rating-view.dto';
import { PutMangaRatingDto } from '../dto/put-rating.dto';
import { MangaRatingView } from '../dto/rating-view.dto';
import { sharedStatistics } from './statistics';
import type { MediaTypeDescriptor } from './media-type.descriptor';

/** Reading time per chapter and per volume in the profile's media_minutes (contract §8). */
const MINUTES_PER_CHAPTER = 8;
const MINUTES_PER_VOLUME = 72;

export const MANGA: MediaTypeDescriptor<'manga', MangaRatingView, MangaStatistics> = {
  name: 'manga',
  scope: 'ratings.manga',
  ownFields: {
    chapters_read: 'chapters_read',
    volumes_read: 'volumes_read',
    is_rereading: 'is_repeating',
    times_reread: 'times_repeated',
    reread_desire: 'repeat_desire',
  },
  counts: [
    { field: 'chapters_read', titleCount: 'chapters', what: 'chapter count', unknownCap: 100000 },
    { field: 'volumes_read', titleCount: 'volumes', what: 'volume count', unknownCap: 10000 },
  ],
  catalogCounts: ['chapters', 'volumes'],
  putDto: PutMangaRatingDto,
  putExample: {
    status: 'ongoing',
    public_rating: 8,
    chapters_read: 120,
    volumes_read: 13,
    is_rereading: false,
    priority: 2,
  },
  view: MangaRatingView,
  publicView: PublicMangaRatingView,
  statistics: {
    view: MangaStatistics,
    of: (row) => {
      const chapters = rawInteger(row?.chapters);
      const volumes = rawInteger(row?.volumes);
      return {
        ...sharedStatistics(row, 'reading'),
        chapters,
        volumes,
        reread: rawInteger(row?.repeats),
        media_minutes: MINUTES_PER_CHAPTER * chapters + MINUTES_PER_VOLUME * volumes,
      };
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
};
