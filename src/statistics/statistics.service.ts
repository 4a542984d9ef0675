import { Injectable } from '@nestjs/common';
import { rawInteger } from '../database/raw-values';
import { descriptorOf, type MediaTypeDescriptor } from '../media-types';
import type { ListTotals } from '../media-types/list-totals';
import { MEDIA_TYPES, type MediaType } from '../media-types/media-type';
import { RATING_STATUSES } from '../media-types/rating-status';
import { roundedMean } from '../media-types/statistics';
import { ProfileStatisticsService } from '../profile/profile-statistics.service';
import type { ProfileStatistics } from '../profile/profile.dto';
import { RatingsService } from '../ratings/ratings.service';
import { SettingsService } from '../settings/settings.service';
import type { User } from '../users/user.entity';
import { SEASONS } from '../catalog/title-facts';
import { lastMonths, monthIn } from './months';
import {
  ACTIVITY_MONTHS,
  type EntryScope,
  type GroupSums,
  type MonthSums,
  StatisticsRepository,
} from './statistics.repository';
import {
  HISTOGRAM_BUCKETS,
  type ActivityMonthView,
  type ByStatus,
  type ScoresView,
  type StatisticsBody,
} from './statistics.dto';

const CACHED_BODIES = 10_000;

/** A body and the version of the data it was computed from. */
interface Cached {
  version: string;
  body: StatisticsBody;
}

/** The mean of the scored entries of a group, rounded half up; null when none is scored. */
function meanOf(scoreSum: unknown, scored: unknown): number | null {
  const count = rawInteger(scored as number);
  return count === 0 ? null : roundedMean(rawInteger(scoreSum as number), count);
}

/** The profile's media_minutes (contract §8) of sums shaped as the profile's totals. */
function minutesOf(
  descriptor: MediaTypeDescriptor,
  sums: Pick<ListTotals, 'episodes' | 'chapters' | 'volumes' | 'episode_minutes'>,
): number {
  const minutes = descriptor.statistics.sums.media_minutes;
  if (!minutes) return 0;
  return minutes.of({
    media_type: descriptor.name,
    ongoing: 0,
    completed: 0,
    on_hold: 0,
    dropped: 0,
    bookmark: 0,
    score_sum: 0,
    scored: 0,
    repeats: 0,
    ...sums,
  });
}

function group(descriptor: MediaTypeDescriptor, row: GroupSums) {
  return {
    count: rawInteger(row.entries),
    mean_score: meanOf(row.score_sum, row.scored),
    minutes: minutesOf(descriptor, {
      episodes: row.episodes ?? 0,
      chapters: row.chapters ?? 0,
      volumes: row.volumes ?? 0,
      episode_minutes: row.episode_minutes ?? 0,
    }),
  };
}

/** Count descending, then name ascending by code point. */
function byCountThenName<T extends { count: number }>(name: (item: T) => string) {
  return (a: T, b: T) => {
    if (a.count !== b.count) return b.count - a.count;
    const [x, y] = [
      [...name(a)].map((c) => c.codePointAt(0)!),
      [...name(b)].map((c) => c.codePointAt(0)!),
    ];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  };
}

/**
 * The statistics of contract §22. `totals` is the profile's object, from ProfileStatisticsService;
 * the rest is grouped aggregates of StatisticsRepository, combined here (means and minutes made
 * as the profile makes them). Bodies are kept per user, view and media type under the version of
 * the data they were computed from, read from the database on every request: the user's list
 * version (every write, every catalog update of a title the list holds, every history event
 * deleted), the time zone and the current month of that zone for the own view; the public
 * version of the list for the public one. A kept body is served only while that version stands.
 */
@Injectable()
export class StatisticsService {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly repository: StatisticsRepository,
    private readonly profile: ProfileStatisticsService,
    private readonly ratings: RatingsService,
    private readonly settings: SettingsService,
  ) {}

  /** The user's own statistics of the media type: every entry, and `activity`. */
  async own(
    user: Pick<User, 'id' | 'createdAt' | 'listVersion'>,
    mediaType: MediaType,
  ): Promise<StatisticsBody> {
    const zone = await this.settings.timeZoneOf(user.id);
    const now = Date.now();
    const version = [user.createdAt.getTime(), user.listVersion, zone, monthIn(zone, now)].join(
      ':',
    );
    return this.cached(`own:${user.id}:${mediaType}`, version, async () => {
      const totals = (await this.profile.forUser(user))[mediaType];
      const body = await this.compute({ userId: user.id, mediaType, visibleOnly: false }, totals);
      return { ...body, activity: await this.activity(user.id, mediaType, zone, now) };
    });
  }

  /**
   * What others see (contract §18): the same over the user's visible entries, without
   * `activity`. `createdAt` tells the user from a later one with the same id.
   */
  async public(owner: { id: number; createdAt: string }, mediaType: MediaType) {
    const versions = await this.ratings.publicVersions(owner.id);
    return this.cached(
      `public:${owner.id}:${mediaType}`,
      `${owner.createdAt}:${versions[mediaType]}`,
      async () => {
        const totals = (await this.publicTotals(owner, versions))[mediaType];
        return this.compute({ userId: owner.id, mediaType, visibleOnly: true }, totals);
      },
    );
  }

  /** The profile's statistics of every media type over the user's visible entries (the card). */
  async publicTotals(
    owner: { id: number; createdAt: string },
    versions?: Record<MediaType, number>,
  ): Promise<ProfileStatistics> {
    const known = versions ?? (await this.ratings.publicVersions(owner.id));
    // The public profile's version: both read the same kept statistics.
    const version = [owner.createdAt, ...MEDIA_TYPES.map((mediaType) => known[mediaType])];
    return this.profile.forPublicView(owner.id, version.join(':'));
  }

  private async cached(
    key: string,
    version: string,
    compute: () => Promise<StatisticsBody>,
  ): Promise<StatisticsBody> {
    const kept = this.cache.get(key);
    if (kept?.version === version) return kept.body;
    const body = await compute();
    this.cache.delete(key);
    this.cache.set(key, { version, body });
    if (this.cache.size > CACHED_BODIES) this.cache.delete(this.cache.keys().next().value!);
    return body;
  }

  private async compute(
    scope: EntryScope,
    totals: Record<string, number>,
  ): Promise<StatisticsBody> {
    const descriptor = descriptorOf(scope.mediaType);
    const [statuses, buckets, years, seasons, formats, tags] = await Promise.all([
      this.repository.byStatus(scope),
      this.repository.scoreBuckets(scope),
      this.repository.byYear(scope),
      this.repository.bySeason(scope),
      this.repository.byFormat(scope),
      this.repository.byTag(scope),
    ]);
    const byStatus = Object.fromEntries(RATING_STATUSES.map((status) => [status, 0])) as ByStatus;
    for (const row of statuses) {
      if (row.status in byStatus) byStatus[row.status as keyof ByStatus] = rawInteger(row.entries);
    }
    const histogram = Object.fromEntries(
      HISTOGRAM_BUCKETS.map((k) => [k, 0]),
    ) as ScoresView['histogram'];
    let scored = 0;
    let scoreSum = 0;
    for (const row of buckets) {
      histogram[String(rawInteger(row.bucket)) as keyof typeof histogram] = rawInteger(row.scored);
      scored += rawInteger(row.scored);
      scoreSum += rawInteger(row.score_sum);
    }
    const seasonOrder = (season: string) => SEASONS.indexOf(season as (typeof SEASONS)[number]);
    return {
      media_type: scope.mediaType,
      totals,
      scores: { count: scored, mean: meanOf(scoreSum, scored), histogram },
      by_status: byStatus,
      by_year: years
        .map((row) => ({ year: rawInteger(row.year), ...group(descriptor, row) }))
        .sort((a, b) => b.year - a.year),
      by_season: seasons
        .map((row) => ({
          year: rawInteger(row.year),
          season: row.season as (typeof SEASONS)[number],
          ...group(descriptor, row),
        }))
        .sort((a, b) => b.year - a.year || seasonOrder(a.season) - seasonOrder(b.season)),
      by_format: formats
        .map((row) => ({ format: row.format, ...group(descriptor, row) }))
        .sort(byCountThenName((item) => item.format)),
      // Ordered and cut to 50 by the database; sorted again by the same rule, which keeps it.
      by_tag: tags
        .map((row) => ({ tag: row.tag, ...group(descriptor, row) }))
        .sort(byCountThenName((item) => item.tag)),
    };
  }

  private async activity(
    userId: number,
    mediaType: MediaType,
    zone: string,
    now: number,
  ): Promise<ActivityMonthView[]> {
    const descriptor = descriptorOf(mediaType);
    const { months, starts, end } = lastMonths(zone, now, ACTIVITY_MONTHS);
    const rows = await this.repository.activity(userId, mediaType, starts, end);
    const progressField = descriptor.history.progress[0] as keyof MonthSums;
    return rows
      .map((row) => ({
        month: months[rawInteger(row.month_index)],
        progress: rawInteger(row[progressField]),
        minutes: minutesOf(descriptor, {
          episodes: row.episodes_watched ?? 0,
          chapters: row.chapters_read ?? 0,
          volumes: row.volumes_read ?? 0,
          episode_minutes: row.episode_minutes ?? 0,
        }),
        completed: rawInteger(row.completed),
      }))
      .sort((a, b) => (a.month < b.month ? 1 : a.month > b.month ? -1 : 0));
  }
}
