import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { DateTimeColumn } from '../database/columns';
import type { MediaType } from '../common/media-type';

/**
 * The latest deletion of a user's entry for a title, kept SYNC_RETENTION_DAYS for the changes
 * feed; removed when the entry is created again.
 */
@Entity('sync_deletions')
@Index('UQ_sync_deletions_user_title', ['userId', 'mediaType', 'titleId'], { unique: true })
@Index('IDX_sync_deletions_user_revision', ['userId', 'mediaType', 'revision'])
@Index('IDX_sync_deletions_deleted_at', ['deletedAt'])
export class SyncDeletion {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'media_type', type: 'varchar', length: 5 })
  mediaType: MediaType;

  @Column({ name: 'title_id', type: 'int' })
  titleId: number;

  /** The list revision of the deletion. */
  @Column({ type: 'int' })
  revision: number;

  @DateTimeColumn('deleted_at')
  deletedAt: Date;
}
