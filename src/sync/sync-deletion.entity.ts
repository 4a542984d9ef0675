import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { DateTimeColumn, FOREIGN_KEY } from '../database/columns';
import { EntryKey } from '../ratings/entry-key';

/**
 * The latest deletion of a user's entry for a title, kept SYNC_RETENTION_DAYS for the changes
 * feed; removed when the entry is created again.
 */
@Entity('sync_deletions')
@Index('UQ_sync_deletions_user_title', ['userId', 'mediaType', 'titleId'], { unique: true })
@Index('IDX_sync_deletions_user_revision', ['userId', 'mediaType', 'revision'])
@Index('IDX_sync_deletions_deleted_at', ['deletedAt'])
@ForeignKey('users', ['userId'], ['id'], {
  name: 'FK_sync_deletions_user',
  ...FOREIGN_KEY,
  onDelete: 'CASCADE',
})
export class SyncDeletion extends EntryKey {
  /** The list revision of the deletion. */
  @Column({ type: 'int' })
  revision: number;

  @DateTimeColumn('deleted_at')
  deletedAt: Date;
}
