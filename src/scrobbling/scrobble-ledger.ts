import { toIsoSeconds } from '../common/timestamps';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, LessThan, MoreThanOrEqual } from 'typeorm';
import type { MediaType } from '../media-types/media-type';
import type { ParsedScrobble } from './parsers';
import { ScrobbleMapping } from './scrobble-mapping.entity';
import { ScrobbleRecent } from './scrobble-recent.entity';
import { ScrobbleUnmatched } from './scrobble-unmatched.entity';
import { isUniqueViolation } from '../database/errors';
import { selectFirst } from '../database/select-arrays';
import { mappingKey } from './scrobble-keys';
import type { ScrobbleMappingView, UnmatchedScrobbleView } from './scrobblers.dto';

/** The duplicate window (contract §21). */
export const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
/** How long, and how many, unmatched requests are kept per user (contract §21). */
export const UNMATCHED_KEPT_MS = 90 * 24 * 60 * 60 * 1000;
export const UNMATCHED_KEPT_PER_USER = 1000;

/**
 * The scrobbling module's tables besides the scrobblers: the recent scrobbles (duplicate window),
 * the unmatched requests and the mappings.
 */
@Injectable()
export class ScrobbleLedger {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * In the scrobble's transaction, under the user's lock: whether the scrobbler sent this episode
   * of the title within the window; if not, records it now.
   */
  async isDuplicate(
    manager: EntityManager,
    key: { scrobblerId: string; mediaType: MediaType; titleId: number; episode: number },
    nowMs: number,
  ): Promise<boolean> {
    // The insert first: a new episode, the common case, costs one statement (a constant one:
    // TypeORM's insert writes the values into the SQL, a new statement to prepare every time).
    try {
      await manager.query(
        'INSERT INTO scrobble_recent (scrobbler_id, media_type, title_id, episode, at_ms) VALUES (?, ?, ?, ?, ?)',
        [key.scrobblerId, key.mediaType, key.titleId, key.episode, nowMs],
      );
      return false;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const seen = await manager.findOneByOrFail(ScrobbleRecent, key);
    if (nowMs - seen.atMs < DUPLICATE_WINDOW_MS) return true;
    await manager.update(ScrobbleRecent, key, { atMs: nowMs });
    return false;
  }

  /** Keeps an unmatched request as its parsed fields; the oldest beyond the limits go. */
  async keepUnmatched(
    userId: number,
    parsed: ParsedScrobble,
    series: string,
    scrobbler: { kind: string; visible: boolean },
    nowMs: number,
  ): Promise<void> {
    const repository = this.dataSource.getRepository(ScrobbleUnmatched);
    await repository.insert({
      userId,
      mediaType: parsed.mediaType,
      keyHash: mappingKey(series, parsed.season),
      series,
      season: parsed.season,
      episode: parsed.episode,
      volume: parsed.volume,
      ids: JSON.stringify(parsed.ids),
      kind: scrobbler.kind,
      visible: scrobbler.visible,
      arrivedAtMs: nowMs,
    });
    const surplus = await repository.find({
      select: { id: true },
      where: { userId },
      order: { id: 'DESC' },
      skip: UNMATCHED_KEPT_PER_USER,
      take: 1000,
    });
    if (surplus.length > 0) await repository.delete({ id: In(surplus.map((row) => row.id)) });
  }

  /** The user's unmatched requests, oldest first (the last 90 days). */
  unmatchedOf(userId: number, nowMs = Date.now()): Promise<ScrobbleUnmatched[]> {
    return this.dataSource
      .getRepository(ScrobbleUnmatched)
      .find({
        where: { userId },
        order: { id: 'ASC' },
      })
      .then((rows) => rows.filter((row) => nowMs - row.arrivedAtMs < UNMATCHED_KEPT_MS));
  }

  /** The pending requests of one key, in arrival order, in the caller's transaction. */
  pendingOf(
    manager: EntityManager,
    userId: number,
    mediaType: MediaType,
    keyHash: string,
  ): Promise<ScrobbleUnmatched[]> {
    return manager.find(ScrobbleUnmatched, {
      where: {
        userId,
        mediaType,
        keyHash,
        arrivedAtMs: MoreThanOrEqual(Date.now() - UNMATCHED_KEPT_MS),
      },
      order: { id: 'ASC' },
    });
  }

  async forgetPending(manager: EntityManager, ids: number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 200) {
      await manager.delete(ScrobbleUnmatched, { id: In(ids.slice(i, i + 200)) });
    }
  }

  /** Read on every scrobble matched past rule 1: one constant statement (see findBySecret). */
  async mappingOf(
    userId: number,
    mediaType: MediaType,
    keyHash: string,
  ): Promise<ScrobbleMapping | null> {
    const row = await selectFirst<MappingRow>(this.dataSource, MAPPING_BY_KEY, [
      userId,
      mediaType,
      keyHash,
    ]);
    if (row === undefined) return null;
    return Object.assign(new ScrobbleMapping(), {
      userId,
      mediaType,
      keyHash,
      series: row.series,
      season: row.season === null ? null : Number(row.season),
      titleId: Number(row.title_id),
      episodeOffset: Number(row.episode_offset),
    });
  }

  mappingsOf(userId: number): Promise<ScrobbleMapping[]> {
    return this.dataSource.getRepository(ScrobbleMapping).find({
      where: { userId },
      order: { mediaType: 'ASC', series: 'ASC' },
    });
  }

  async saveMapping(manager: EntityManager, mapping: ScrobbleMapping): Promise<void> {
    const { userId, mediaType, keyHash } = mapping;
    await manager.delete(ScrobbleMapping, { userId, mediaType, keyHash });
    await manager.insert(ScrobbleMapping, mapping);
  }

  async deleteMapping(userId: number, mediaType: MediaType, keyHash: string): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(ScrobbleMapping)
      .delete({ userId, mediaType, keyHash });
    return (result.affected ?? 0) > 0;
  }

  /** GET /v1/my/scrobblers/unmatched: one item per (media type, series, season), newest first. */
  async unmatchedViews(userId: number): Promise<UnmatchedScrobbleView[]> {
    const groups = new Map<string, UnmatchedScrobbleView & { lastMs: number }>();
    for (const row of await this.unmatchedOf(userId)) {
      const key = `${row.mediaType}:${row.keyHash}`;
      const group: UnmatchedScrobbleView & { lastMs: number } = groups.get(key) ?? {
        media_type: row.mediaType,
        series: row.series,
        season: row.season,
        ids: {},
        episodes: [],
        count: 0,
        last_at: '',
        lastMs: 0,
      };
      group.series = row.series;
      group.ids = { ...group.ids, ...(JSON.parse(row.ids) as Record<string, number>) };
      if (row.episode !== null && !group.episodes.includes(row.episode))
        group.episodes.push(row.episode);
      group.count += 1;
      group.lastMs = row.arrivedAtMs;
      groups.set(key, group);
    }
    return [...groups.values()]
      .sort((a, b) => b.lastMs - a.lastMs)
      .map(({ lastMs, ...group }) => ({
        ...group,
        episodes: [...group.episodes].sort((a, b) => a - b),
        last_at: toIsoSeconds(new Date(lastMs)),
      }));
  }

  async mappingViews(userId: number): Promise<ScrobbleMappingView[]> {
    return (await this.mappingsOf(userId)).map(mappingView);
  }

  /** The purge of recent scrobbles past the window (PurgeRegistry): at most `limit` rows. */
  async purgeRecent(now: Date, limit: number): Promise<number> {
    const repository = this.dataSource.getRepository(ScrobbleRecent);
    const due = await repository.find({
      where: { atMs: LessThan(now.getTime() - DUPLICATE_WINDOW_MS) },
      order: { atMs: 'ASC' },
      take: limit,
    });
    for (let i = 0; i < due.length; i += 100) {
      await repository.delete(
        due.slice(i, i + 100).map(({ scrobblerId, mediaType, titleId, episode }) => ({
          scrobblerId,
          mediaType,
          titleId,
          episode,
        })),
      );
    }
    return due.length;
  }

  /** Erasure: the user's mappings and unmatched requests, in the caller's transaction. */
  async forgetUser(manager: EntityManager, userId: number): Promise<void> {
    await manager.delete(ScrobbleUnmatched, { userId });
    await manager.delete(ScrobbleMapping, { userId });
  }
}

export function mappingView(mapping: ScrobbleMapping): ScrobbleMappingView {
  return {
    series: mapping.series,
    season: mapping.season,
    media_type: mapping.mediaType,
    title_id: mapping.titleId,
    episode_offset: mapping.episodeOffset,
  };
}

const MAPPING_BY_KEY =
  'SELECT series, season, title_id, episode_offset FROM scrobble_mappings ' +
  'WHERE user_id = ? AND media_type = ? AND key_hash = ?';

interface MappingRow {
  series: string;
  season: number | string | null;
  title_id: number | string;
  episode_offset: number | string;
}
