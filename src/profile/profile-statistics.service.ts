import { Injectable } from '@nestjs/common';
import type { MediaType } from '../common/media-type';
import { rawInteger } from '../database/raw-values';
import type { ListTotals } from '../ratings/ratings.repository';
import { RatingsService } from '../ratings/ratings.service';
import type { User } from '../users/user.entity';
import type { AnimeStatistics, MangaStatistics, ProfileStatistics } from './profile.dto';

const DEFAULT_EPISODE_MINUTES = 24;
const MINUTES_PER_CHAPTER = 8;
const MINUTES_PER_VOLUME = 72;

const CACHED_VIEWS = 10_000;

/**
 * The profile statistics of decisions §8, in one aggregate query over the user's entries (the
 * unique index on user, media type, title serves it). Every SQL result is an integer sum; the
 * average is divided and rounded here, so SQLite and MariaDB give the same number.
 *
 * The aggregate grows with the list (about 20 ms at 10,000 entries), so results are cached per
 * user under the user's list version, which every write to the list and every catalog update
 * bumps in the database: a cached value is served only while the list is exactly as it was, on
 * every instance.
 */
@Injectable()
export class ProfileStatisticsService {
  /** Keyed by view and user (`own:7`, `public:7`): the two views never share a value. */
  private readonly cache = new Map<string, { version: string; statistics: ProfileStatistics }>();

  constructor(private readonly ratings: RatingsService) {}

  async forUser(user: Pick<User, 'id' | 'createdAt' | 'listVersion'>): Promise<ProfileStatistics> {
    // The creation time too: an id that a deleted user's successor reuses starts at version 0 again.
    const version = `${user.createdAt.getTime()}:${user.listVersion}`;
    return this.cached(`own:${user.id}`, version, () => this.compute(user.id, false));
  }

  /**
   * The same statistics over the entries other users may see (decisions §18: the ratings module's
   * public view decides which). `version` must move whenever that view of either list changes:
   * the user's creation time and the public versions of both lists.
   */
  forPublicView(userId: number, version: string): Promise<ProfileStatistics> {
    return this.cached(`public:${userId}`, version, () => this.compute(userId, true));
  }

  private async cached(
    key: string,
    version: string,
    compute: () => Promise<ProfileStatistics>,
  ): Promise<ProfileStatistics> {
    const cached = this.cache.get(key);
    if (cached?.version === version) return cached.statistics;
    const statistics = await compute();
    this.cache.delete(key);
    this.cache.set(key, { version, statistics });
    if (this.cache.size > CACHED_VIEWS) this.cache.delete(this.cache.keys().next().value!);
    return statistics;
  }

  private async compute(userId: number, visibleOnly: boolean): Promise<ProfileStatistics> {
    const rows = await this.ratings.listTotals(userId, {
      visibleOnly,
      defaultEpisodeMinutes: DEFAULT_EPISODE_MINUTES,
    });
    const totals = (mediaType: MediaType) => rows.find((row) => row.media_type === mediaType);
    return { anime: animeStatistics(totals('anime')), manga: mangaStatistics(totals('manga')) };
  }
}

/** Mean rounded half up, in integers: floor((2·sum + n) / 2n). */
export function roundedMean(sum: number, n: number): number {
  return n === 0 ? 0 : Math.floor((2 * sum + n) / (2 * n));
}

function animeStatistics(row: ListTotals | undefined): AnimeStatistics {
  return {
    watching: rawInteger(row?.ongoing),
    completed: rawInteger(row?.completed),
    on_hold: rawInteger(row?.on_hold),
    dropped: rawInteger(row?.dropped),
    bookmark: rawInteger(row?.bookmark),
    average: roundedMean(rawInteger(row?.score_sum), rawInteger(row?.scored)),
    episodes: rawInteger(row?.episodes),
    rewatched: rawInteger(row?.repeats),
    media_minutes: rawInteger(row?.episode_minutes),
  };
}

function mangaStatistics(row: ListTotals | undefined): MangaStatistics {
  const chapters = rawInteger(row?.chapters);
  const volumes = rawInteger(row?.volumes);
  return {
    reading: rawInteger(row?.ongoing),
    completed: rawInteger(row?.completed),
    on_hold: rawInteger(row?.on_hold),
    dropped: rawInteger(row?.dropped),
    bookmark: rawInteger(row?.bookmark),
    average: roundedMean(rawInteger(row?.score_sum), rawInteger(row?.scored)),
    chapters,
    volumes,
    reread: rawInteger(row?.repeats),
    media_minutes: MINUTES_PER_CHAPTER * chapters + MINUTES_PER_VOLUME * volumes,
  };
}
