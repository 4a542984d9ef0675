import { rawInteger } from '../../database/raw-values';
import { AnimeStatistics } from '../../profile/profile.dto';
import { PublicAnimeRatingView } from '../dto/public-rating-view.dto';
import { PutAnimeRatingDto } from '../dto/put-rating.dto';
import { AnimeRatingView } from '../dto/rating-view.dto';
import { sharedStatistics } from './statistics';
import type { MediaTypeDescriptor } from './media-type.descriptor';

export const ANIME: MediaTypeDescriptor<'anime', AnimeRatingView, AnimeStatistics> = {
  name: 'anime',
  scope: 'ratings.anime',
  ownFields: {
    episodes_watched: 'episodes_watched',
    is_rewatching: 'is_repeating',
    times_rewatched: 'times_repeated',
    rewatch_desire: 'repeat_desire',
  },
  counts: [
    {
      field: 'episodes_watched',
      titleCount: 'episodes',
      what: 'episode count',
      unknownCap: 100000,
    },
  ],
  catalogCounts: ['episodes', 'episodeMinutes'],
  putDto: PutAnimeRatingDto,
  putExample: {
    status: 'completed',
    public_rating: 9,
    public_fraction: 5,
    personal_rating: 95,
    episodes_watched: 64,
    start_date: '2024-01-02',
    end_date: '2024-03-30',
    notes: 'Rewatch the Promised Day arc',
  },
  view: AnimeRatingView,
  publicView: PublicAnimeRatingView,
  statistics: {
    view: AnimeStatistics,
    of: (row) => ({
      ...sharedStatistics(row, 'watching'),
      episodes: rawInteger(row?.episodes),
      rewatched: rawInteger(row?.repeats),
      media_minutes: rawInteger(row?.episode_minutes),
    }),
  },
  history: { progress: ['episodes_watched'], repeating: 'is_rewatching' },
  mal: {
    exportType: 1,
    entryElement: 'anime',
    idElement: 'series_animedb_id',
    titleElement: 'series_title',
    fileName: 'animelist.xml',
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
    statusNames: { ongoing: 'Watching', bookmark: 'Plan to Watch' },
    titleCounts: { series_episodes: 'episodes' },
    progress: [{ element: 'my_watched_episodes', field: 'episodes_watched' }],
    times: { element: 'my_times_watched', field: 'times_rewatched' },
    repeating: { element: 'my_rewatching', field: 'is_rewatching', written: [1, 0] },
    desire: { element: 'my_rewatch_value', field: 'rewatch_desire' },
    fixed: { series_type: '', my_rated: '', my_storage_value: 0, my_rewatching_ep: 0 },
    cdata: [],
  },
};
