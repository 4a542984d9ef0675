import { Injectable } from '@nestjs/common';
import { byMediaType } from '../media-types';
import { statisticsOf } from '../media-types/statistics';
import { RatingsService } from '../ratings/ratings.service';
import type { User } from '../users/user.entity';
import type { ProfileStatistics } from './profile.dto';

/** The episode length assumed where the catalog does not know it (contract §8). */
const DEFAULT_EPISODE_MINUTES = 24;

const CACHED_VIEWS = 10_000;

/**
 * The profile statistics of contract §8 (each media type's descriptor has its formula), in one
 * aggregate query over the user's entries (the
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
   * The same statistics over the entries other users may see (contract §18: the ratings module's
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
    return byMediaType((descriptor) =>
      statisticsOf(
        descriptor,
        rows.find((row) => row.media_type === descriptor.name),
      ),
    ) as ProfileStatistics;
  }
}
