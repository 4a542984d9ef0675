import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { rawIsoSeconds } from '../database/raw-values';
import { isSqlite } from '../database/transactions';
import { byMediaType } from '../media-types';
import type { MediaType } from '../media-types/media-type';
import { PUBLIC_ENTRY_CONDITION } from '../media-types/public-view.policy';

/**
 * Increments the revision counter of a user's list and hands the new value back in one round
 * trip (MySQL: LAST_INSERT_ID(expr) carries it in the statement's result).
 */
const NEXT_REVISION_SQL = {
  sqlite: `INSERT INTO rating_revisions (user_id, media_type, revision) VALUES (?, ?, 1)
      ON CONFLICT (user_id, media_type) DO UPDATE SET revision = revision + 1 RETURNING revision`,
  mysql: `INSERT INTO rating_revisions (user_id, media_type, revision)
      VALUES (?, ?, LAST_INSERT_ID(1)) ON DUPLICATE KEY UPDATE revision = LAST_INSERT_ID(revision + 1)`,
};

/**
 * Where a user's list of one media type stands, in one primary-key read: what GET all's entity
 * tag and the changes feed's cursors are made of. `users` is a read of the users module's table
 * (the user's creation time, which tells a user from a later one with the same id), joined here
 * to keep every conditional GET at one statement.
 */
const LIST_STATE_SQL = `SELECT u.created_at AS created_at, r.revision AS revision,
  r.catalog_version AS catalog_version
  FROM users u LEFT JOIN rating_revisions r ON r.user_id = u.id AND r.media_type = ?
  WHERE u.id = ?`;

export interface ListState {
  /** `YYYY-MM-DDThh:mm:ssZ`: tells a user from a later one with the same id. */
  userCreatedAt: string;
  /** The revision of the latest write to the list; every write up to it is committed. */
  revision: number;
  /** Moves when a catalog update changes a title the list holds. */
  catalogVersion: number;
}

const PUBLIC_VERSION_SQL =
  'SELECT public_version FROM rating_revisions WHERE user_id = ? AND media_type = ?';
const PUBLIC_VERSIONS_SQL =
  'SELECT media_type, public_version FROM rating_revisions WHERE user_id = ?';
// The row exists: the write that calls for this took its revision from it, in the same transaction.
const BUMP_PUBLIC_VERSION_SQL = `UPDATE rating_revisions SET public_version = public_version + 1
  WHERE user_id = ? AND media_type = ?`;

const REVISION_SQL = 'SELECT revision FROM rating_revisions WHERE user_id = ? AND media_type = ?';

/**
 * The ratings module's `rating_revisions`: per user and media type, the revision counter that
 * orders the list's writes, the catalog version and the public version, and where a list stands
 * (its one read of `users`, LIST_STATE_SQL). Writes take the manager of the caller's transaction.
 */
@Injectable()
export class ListVersionsRepository {
  private readonly nextRevisionSql: string;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.nextRevisionSql = isSqlite(dataSource)
      ? NEXT_REVISION_SQL.sqlite
      : NEXT_REVISION_SQL.mysql;
  }

  /**
   * The version of what others see of the list (contract §18): moves only with a write or a
   * catalog update that changes it. 0 before the first.
   */
  async publicVersion(userId: number, mediaType: MediaType): Promise<number> {
    const [row] = await this.dataSource.query<{ public_version: number }[]>(PUBLIC_VERSION_SQL, [
      userId,
      mediaType,
    ]);
    return row ? Number(row.public_version) : 0;
  }

  /** publicVersion of both media types. */
  async publicVersions(userId: number): Promise<Record<MediaType, number>> {
    const rows = await this.dataSource.query<{ media_type: MediaType; public_version: number }[]>(
      PUBLIC_VERSIONS_SQL,
      [userId],
    );
    const versions = byMediaType(() => 0);
    for (const row of rows) versions[row.media_type] = Number(row.public_version);
    return versions;
  }

  /** Moves the public version, in the transaction of the write that changed the public view. */
  async bumpPublicVersion(
    manager: EntityManager,
    userId: number,
    mediaType: MediaType,
  ): Promise<void> {
    await manager.query(BUMP_PUBLIC_VERSION_SQL, [userId, mediaType]);
  }

  /**
   * The catalog changed these titles (in the caller's transaction): every list holding one has a
   * new body, and so has the public view where such an entry is visible (contract §10, §18).
   * Returns the users holding them.
   */
  async titlesChanged(
    manager: EntityManager,
    mediaType: MediaType,
    titleIds: number[],
  ): Promise<number[]> {
    const titles = titleIds.map(() => '?').join(', ');
    const holders = `SELECT DISTINCT e.user_id FROM rating_entries e
      WHERE e.media_type = ? AND e.title_id IN (${titles})`;
    const visibleHolders = `${holders} AND ${PUBLIC_ENTRY_CONDITION}`;
    await manager.query(
      `UPDATE rating_revisions SET catalog_version = catalog_version + 1,
          public_version = public_version
            + CASE WHEN user_id IN (${visibleHolders}) THEN 1 ELSE 0 END
        WHERE media_type = ? AND user_id IN (${holders})`,
      [mediaType, ...titleIds, mediaType, mediaType, ...titleIds],
    );
    const rows = await manager.query<{ user_id: number }[]>(holders, [mediaType, ...titleIds]);
    return rows.map((row) => Number(row.user_id));
  }

  /** Null when the user no longer exists. */
  async listState(userId: number, mediaType: MediaType): Promise<ListState | null> {
    const [row] = await this.dataSource.query<
      { created_at: Date | string; revision: number | null; catalog_version: number | null }[]
    >(LIST_STATE_SQL, [mediaType, userId]);
    if (!row) return null;
    return {
      userCreatedAt: rawIsoSeconds(row.created_at),
      revision: Number(row.revision ?? 0),
      catalogVersion: Number(row.catalog_version ?? 0),
    };
  }

  /**
   * Increments the user's revision counter of the media type and returns the new value. The row
   * stays locked until `manager`'s transaction ends, so revisions commit in order.
   */
  async nextRevision(
    manager: EntityManager,
    userId: number,
    mediaType: MediaType,
  ): Promise<number> {
    const result: unknown = await manager.query(this.nextRevisionSql, [userId, mediaType]);
    return Array.isArray(result)
      ? (result as { revision: number }[])[0].revision
      : (result as { insertId: number }).insertId;
  }

  /** The user's last revision of the media type (0 before the first write). */
  async currentRevision(userId: number, mediaType: MediaType): Promise<number> {
    const [row] = await this.dataSource.query<{ revision: number }[]>(REVISION_SQL, [
      userId,
      mediaType,
    ]);
    return row ? Number(row.revision) : 0;
  }
}
