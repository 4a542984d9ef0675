import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';
import { FOREIGN_KEY, MillisecondsColumn, NULLABLE } from '../database/columns';

/**
 * One history event (contract §20): a write that created an entry or changed its status, its
 * progress or its score. `id` is the write's revision (RatingChange.revision): unique per user and
 * media type, and larger for a later commit, since every write takes the next revision under the
 * list's lock. A member that did not change has null in both of its columns; on creation `*_from`
 * is null.
 */
@Entity('history_events')
@Index('IDX_history_events_title', ['userId', 'mediaType', 'titleId', 'id'])
@Index('IDX_history_events_at', ['userId', 'mediaType', 'atMs'])
export class HistoryEvent {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'FK_history_events_user', ...FOREIGN_KEY, onDelete: 'CASCADE' })
  userId: number;

  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ name: 'id', type: 'int' })
  id: number;

  @Column({ name: 'title_id', type: 'int' })
  titleId: number;

  @MillisecondsColumn('at_ms')
  atMs: number;

  @Column({ type: 'varchar', length: 8 })
  source: string;

  @Column({ type: 'varchar', length: 100, ...NULLABLE })
  client: string | null;

  @Column({ type: 'int', ...NULLABLE })
  viewing: number | null;

  @Column({ name: 'status_from', type: 'varchar', length: 16, ...NULLABLE })
  statusFrom: string | null;

  @Column({ name: 'status_to', type: 'varchar', length: 16, ...NULLABLE })
  statusTo: string | null;

  @Column({ name: 'episodes_watched_from', type: 'int', ...NULLABLE })
  episodesWatchedFrom: number | null;

  @Column({ name: 'episodes_watched_to', type: 'int', ...NULLABLE })
  episodesWatchedTo: number | null;

  @Column({ name: 'chapters_read_from', type: 'int', ...NULLABLE })
  chaptersReadFrom: number | null;

  @Column({ name: 'chapters_read_to', type: 'int', ...NULLABLE })
  chaptersReadTo: number | null;

  @Column({ name: 'volumes_read_from', type: 'int', ...NULLABLE })
  volumesReadFrom: number | null;

  @Column({ name: 'volumes_read_to', type: 'int', ...NULLABLE })
  volumesReadTo: number | null;

  @Column({ name: 'score_from', type: 'smallint', ...NULLABLE })
  scoreFrom: number | null;

  @Column({ name: 'score_to', type: 'smallint', ...NULLABLE })
  scoreTo: number | null;

  /**
   * The write opened a viewing through a rewatch (rule 1): progress restarts, so statistics count
   * its rise from 0 (contract §22). Null on events recorded before this column.
   */
  @Column({ type: 'boolean', ...NULLABLE })
  restarted: boolean | null;
}
