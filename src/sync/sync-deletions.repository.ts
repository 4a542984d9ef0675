import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { MediaType } from '../media-types/media-type';
import { nowToTheSecond } from '../common/timestamps';
import { sqlDateTime } from '../database/raw-values';
import { isSqlite } from '../database/transactions';
import { SyncDeletion } from './sync-deletion.entity';

const DELETED_BETWEEN_SQL = `SELECT title_id, revision FROM sync_deletions
  WHERE user_id = ? AND media_type = ? AND revision > ? AND revision <= ?
  ORDER BY revision LIMIT ?`;

/**
 * The write path's statements, fixed text: on SQLite, TypeORM's `delete` and `upsert` write
 * numbers into the SQL, so each title made a statement of its own, prepared anew and pushing the
 * write path's statements out of the driver's cache of prepared statements (100, first in first
 * out).
 */
const RECORD_DELETION_SQL = {
  sqlite: `INSERT INTO sync_deletions (user_id, media_type, title_id, revision, deleted_at)
    VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, media_type, title_id)
    DO UPDATE SET revision = excluded.revision, deleted_at = excluded.deleted_at`,
  mysql: `INSERT INTO sync_deletions (user_id, media_type, title_id, revision, deleted_at)
    VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE revision = VALUES(revision),
    deleted_at = VALUES(deleted_at)`,
};
const FORGET_DELETION_SQL =
  'DELETE FROM sync_deletions WHERE user_id = ? AND media_type = ? AND title_id = ?';

/** The sync module's table of deletions (contract §12). */
@Injectable()
export class SyncDeletionsRepository {
  private readonly recordDeletionSql: string;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.recordDeletionSql = isSqlite(dataSource)
      ? RECORD_DELETION_SQL.sqlite
      : RECORD_DELETION_SQL.mysql;
  }

  /** Inside the deletion's transaction: one row per title, the latest deletion. */
  async recordDeletion(
    em: EntityManager,
    userId: number,
    mediaType: MediaType,
    titleId: number,
    revision: number,
  ): Promise<void> {
    await em.query(this.recordDeletionSql, [
      userId,
      mediaType,
      titleId,
      revision,
      sqlDateTime(nowToTheSecond()),
    ]);
  }

  /** Inside a create's transaction: the title is in the list again, so no longer deleted. */
  async forgetDeletion(
    em: EntityManager,
    userId: number,
    mediaType: MediaType,
    titleId: number,
  ): Promise<void> {
    await em.query(FORGET_DELETION_SQL, [userId, mediaType, titleId]);
  }

  /** Forgets every deletion of the user, in the caller's transaction (erasing the user). */
  async forgetUser(em: EntityManager, userId: number): Promise<void> {
    await em.delete(SyncDeletion, { userId });
  }

  /** The titles whose latest deletion has a revision in (after, upTo], oldest deletion first. */
  async deletedBetween(
    userId: number,
    mediaType: MediaType,
    after: number,
    upTo: number,
    limit: number,
  ): Promise<{ revision: number; titleId: number }[]> {
    const rows = await this.dataSource.query<{ title_id: number; revision: number }[]>(
      DELETED_BETWEEN_SQL,
      [userId, mediaType, after, upTo, limit],
    );
    return rows.map((row) => ({ revision: Number(row.revision), titleId: Number(row.title_id) }));
  }

  /** Removes at most `batch` deletions made before `before`; returns how many went. */
  async purgeBefore(before: Date, batch: number): Promise<number> {
    const rows = await this.dataSource
      .getRepository(SyncDeletion)
      .createQueryBuilder('d')
      .select('d.id', 'id')
      .where('d.deletedAt < :before', { before })
      .orderBy('d.id')
      .limit(batch)
      .getRawMany<{ id: number }>();
    if (rows.length === 0) return 0;
    await this.dataSource.getRepository(SyncDeletion).delete(rows.map((row) => row.id));
    return rows.length;
  }
}
