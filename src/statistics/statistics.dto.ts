import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { byMediaType, type MediaTypeDescriptor } from '../media-types';
import { capitalized, type MediaType } from '../media-types/media-type';
import type { RatingStatus } from '../media-types/rating-status';
import { STATISTICS_VIEWS } from '../profile/profile.dto';
import { SEASONS, type Season } from '../catalog/title-facts';

const MEAN =
  'Mean score (0–100) of the scored entries of the group (score above 0), rounded half up; null when none is scored';
const MINUTES = "The entries' media_minutes as the profile computes them (contract §8), summed";

export const HISTOGRAM_BUCKETS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'] as const;

export class ScoresView {
  @ApiProperty({ type: 'integer', example: 41, description: 'Entries scoring above 0' })
  count: number;

  @ApiProperty({ type: 'integer', nullable: true, example: 78, description: MEAN })
  mean: number | null;

  @ApiProperty({
    description:
      'For k = 1…10 (all ten keys always present): the scored entries with ceil(score / 10) = k',
    type: 'object',
    properties: Object.fromEntries(HISTOGRAM_BUCKETS.map((k) => [k, { type: 'integer' }])),
    required: [...HISTOGRAM_BUCKETS],
    example: { 1: 0, 2: 0, 3: 1, 4: 0, 5: 2, 6: 3, 7: 9, 8: 12, 9: 7, 10: 7 },
  })
  histogram: Record<(typeof HISTOGRAM_BUCKETS)[number], number>;
}

export class ByStatusView {
  @ApiProperty({ type: 'integer', example: 3 }) ongoing: number;
  @ApiProperty({ type: 'integer', example: 30 }) completed: number;
  @ApiProperty({ type: 'integer', example: 1 }) on_hold: number;
  @ApiProperty({ type: 'integer', example: 2 }) dropped: number;
  @ApiProperty({ type: 'integer', example: 0 }) not_interested: number;
  @ApiProperty({ type: 'integer', example: 5 }) bookmark: number;
}
export type ByStatus = Record<RatingStatus, number>;

class GroupView {
  @ApiProperty({ type: 'integer', example: 12, description: 'Entries in the group' })
  count: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 81, description: MEAN })
  mean_score: number | null;
  @ApiProperty({ type: 'integer', example: 5184, description: MINUTES })
  minutes: number;
}

export class YearGroupView extends GroupView {
  @ApiProperty({ type: 'integer', example: 2019, minimum: 1900, maximum: 2100 }) year: number;
}

export class SeasonGroupView extends GroupView {
  @ApiProperty({ type: 'integer', example: 2019 }) year: number;
  @ApiProperty({ enum: SEASONS, example: 'spring' }) season: Season;
}

export class FormatGroupView extends GroupView {
  @ApiProperty({ example: 'tv', description: "The titles' format" }) format: string;
}

export class TagGroupView extends GroupView {
  @ApiProperty({ example: 'action', description: 'A tag of the titles (lower case)' })
  tag: string;
}

export class ActivityMonthView {
  @ApiProperty({ example: '2026-11', description: 'A month of your time zone (settings)' })
  month: string;
  @ApiProperty({
    type: 'integer',
    example: 52,
    description:
      'Sum of the rises of episodes_watched (manga: chapters_read) of the events of that month: max(0, to − from), from counted as 0 for an event that started a rewatch',
  })
  progress: number;
  @ApiProperty({
    type: 'integer',
    example: 1248,
    description:
      "The same rises weighted as the profile weighs the title: anime × the title's episode_minutes (24 when unknown); manga 8 per chapter plus 72 per volume of the rise of volumes_read",
  })
  minutes: number;
  @ApiProperty({ type: 'integer', example: 3, description: 'Events whose status.to is completed' })
  completed: number;
}

/** The body of the statistics of one media type (contract §22). */
export interface StatisticsBody {
  media_type: string;
  totals: Record<string, number>;
  scores: ScoresView;
  by_status: ByStatus;
  by_year: YearGroupView[];
  by_season: SeasonGroupView[];
  by_format: FormatGroupView[];
  by_tag: TagGroupView[];
  activity?: ActivityMonthView[];
}

/** `AnimeStatisticsView`, `PublicAnimeStatisticsView`: the documented body of each media type. */
function statisticsViewClass(
  descriptor: MediaTypeDescriptor<MediaType>,
  view: 'own' | 'public',
): Type {
  const name = `${view === 'public' ? 'Public' : ''}${capitalized(descriptor.name)}StatisticsView`;
  const type = Object.defineProperty(class {}, 'name', { value: name });
  const property = (key: string, options: Parameters<typeof ApiProperty>[0]) =>
    ApiProperty(options)(type.prototype, key);
  property('media_type', { enum: [descriptor.name], example: descriptor.name });
  property('totals', {
    type: STATISTICS_VIEWS[descriptor.name],
    description: `Exactly the profile's statistics.${descriptor.name} (contract §8)`,
  });
  property('scores', { type: ScoresView });
  property('by_status', { type: ByStatusView, description: 'All six statuses, always present' });
  property('by_year', {
    type: [YearGroupView],
    description: "By the titles' year, newest first; titles without a year left out",
  });
  property('by_season', {
    type: [SeasonGroupView],
    description:
      'By year and season: year descending, then winter, spring, summer, fall; titles without both left out',
  });
  property('by_format', {
    type: [FormatGroupView],
    description: 'By format: count descending, then format ascending',
  });
  property('by_tag', {
    type: [TagGroupView],
    description:
      'By tag (an entry counts once in each of its title’s tags): count descending, then tag ascending by code point; at most 50',
  });
  if (view === 'own') {
    ApiProperty({
      type: [ActivityMonthView],
      description:
        'From the history: one item per month of your time zone with at least one event of source api or scrobble (imports left out), newest first, at most the last 24 months',
    })(type.prototype, 'activity');
  }
  return type;
}

export const STATISTICS_BODY_VIEWS = byMediaType((descriptor) => ({
  own: statisticsViewClass(descriptor, 'own'),
  public: statisticsViewClass(descriptor, 'public'),
}));

/**
 * The OpenAPI examples: one consistent list per media type, whose totals are the profile example
 * of docs/api.md (anime: 7 entries, 24-minute episodes, scores 85 and 70; manga: 2 entries).
 */
export const STATISTICS_EXAMPLES: Record<string, StatisticsBody> = {
  anime: {
    media_type: 'anime',
    totals: {
      watching: 1,
      completed: 3,
      on_hold: 0,
      dropped: 1,
      bookmark: 2,
      average: 78,
      episodes: 120,
      rewatched: 1,
      media_minutes: 2880,
    },
    scores: {
      count: 2,
      mean: 78,
      histogram: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 1, 8: 0, 9: 1, 10: 0 },
    },
    by_status: { ongoing: 1, completed: 3, on_hold: 0, dropped: 1, not_interested: 0, bookmark: 2 },
    by_year: [
      { year: 2019, count: 4, mean_score: 85, minutes: 1440 },
      { year: 2009, count: 2, mean_score: 70, minutes: 1440 },
    ],
    by_season: [
      { year: 2019, season: 'spring', count: 2, mean_score: 85, minutes: 1440 },
      { year: 2019, season: 'fall', count: 1, mean_score: null, minutes: 0 },
      { year: 2009, season: 'spring', count: 2, mean_score: 70, minutes: 1440 },
    ],
    by_format: [
      { format: 'tv', count: 5, mean_score: 78, minutes: 2880 },
      { format: 'movie', count: 1, mean_score: null, minutes: 0 },
    ],
    by_tag: [
      { tag: 'action', count: 4, mean_score: 78, minutes: 2880 },
      { tag: 'drama', count: 2, mean_score: 85, minutes: 1440 },
    ],
    activity: [
      { month: '2026-11', progress: 12, minutes: 288, completed: 1 },
      { month: '2026-10', progress: 48, minutes: 1152, completed: 1 },
    ],
  },
  manga: {
    media_type: 'manga',
    totals: {
      reading: 1,
      completed: 1,
      on_hold: 0,
      dropped: 0,
      bookmark: 0,
      average: 80,
      chapters: 200,
      volumes: 20,
      reread: 0,
      media_minutes: 3040,
    },
    scores: {
      count: 1,
      mean: 80,
      histogram: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: 1, 9: 0, 10: 0 },
    },
    by_status: { ongoing: 1, completed: 1, on_hold: 0, dropped: 0, not_interested: 0, bookmark: 0 },
    by_year: [
      { year: 2016, count: 1, mean_score: 80, minutes: 2280 },
      { year: 2003, count: 1, mean_score: null, minutes: 760 },
    ],
    by_season: [{ year: 2016, season: 'fall', count: 1, mean_score: 80, minutes: 2280 }],
    by_format: [{ format: 'manga', count: 2, mean_score: 80, minutes: 3040 }],
    by_tag: [
      { tag: 'romance', count: 2, mean_score: 80, minutes: 3040 },
      { tag: 'drama', count: 1, mean_score: 80, minutes: 2280 },
    ],
    activity: [{ month: '2026-11', progress: 30, minutes: 312, completed: 1 }],
  },
};

/** The example of a media type's body in a view: the public one has no `activity`. */
export function statisticsExample(mediaType: string, view: 'own' | 'public'): StatisticsBody {
  const example = STATISTICS_EXAMPLES[mediaType];
  if (!example || view === 'own') return example;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { activity, ...shown } = example;
  return shown;
}
