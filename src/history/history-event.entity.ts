import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { MediaType } from '../media-types/media-type';
import { MillisecondsColumn } from '../database/columns';

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
  userId: number;

  @PrimaryColumn({ name: 'media_type', type: 'varchar', length: 5 })
  mediaType: MediaType;

  @PrimaryColumn({ name: 'id', type: 'int' })
  id: number;

  @Column({ name: 'title_id', type: 'int' })
  titleId: number;

  @MillisecondsColumn('at_ms')
  atMs: number;

  @Column({ type: 'varchar', length: 8 })
  source: string;

  @Column({ type: 'varchar', length: 100, nullable: true })
  client: string | null;

  @Column({ type: 'int', nullable: true })
  viewing: number | null;

  @Column({ name: 'status_from', type: 'varchar', length: 16, nullable: true })
  statusFrom: string | null;

  @Column({ name: 'status_to', type: 'varchar', length: 16, nullable: true })
  statusTo: string | null;

  @Column({ name: 'episodes_watched_from', type: 'int', nullable: true })
  episodesWatchedFrom: number | null;

  @Column({ name: 'episodes_watched_to', type: 'int', nullable: true })
  episodesWatchedTo: number | null;

  @Column({ name: 'chapters_read_from', type: 'int', nullable: true })
  chaptersReadFrom: number | null;

  @Column({ name: 'chapters_read_to', type: 'int', nullable: true })
  chaptersReadTo: number | null;

  @Column({ name: 'volumes_read_from', type: 'int', nullable: true })
  volumesReadFrom: number | null;

  @Column({ name: 'volumes_read_to', type: 'int', nullable: true })
  volumesReadTo: number | null;

  @Column({ name: 'score_from', type: 'smallint', nullable: true })
  scoreFrom: number | null;

  @Column({ name: 'score_to', type: 'smallint', nullable: true })
  scoreTo: number | null;
}
