import { Column, Entity, Index } from 'typeorm';
import { DateTimeColumn } from '../database/columns';
import { EntryKey } from './entry-key';

export const RATING_STATUSES = [
  'ongoing',
  'completed',
  'on_hold',
  'dropped',
  'not_interested',
  'bookmark',
] as const;
export type RatingStatus = (typeof RATING_STATUSES)[number];

/**
 * One user's entry for one title. Rewatch (anime) and reread (manga) share the `repeat` columns;
 * the API names them per media type.
 */
@Entity('rating_entries')
@Index('UQ_rating_entries_user_title', ['userId', 'mediaType', 'titleId'], { unique: true })
@Index('IDX_rating_entries_user_revision', ['userId', 'mediaType', 'revision'])
export class RatingEntry extends EntryKey {
  @Column({ type: 'varchar', length: 16 })
  status: RatingStatus;

  @Column({ name: 'is_visible', type: 'boolean' })
  isVisible: boolean;

  @Column({ name: 'public_rating', type: 'smallint' })
  publicRating: number;

  @Column({ name: 'public_fraction', type: 'smallint' })
  publicFraction: number;

  @Column({ name: 'personal_rating', type: 'smallint' })
  personalRating: number;

  @Column({ name: 'episodes_watched', type: 'int' })
  episodesWatched: number;

  @Column({ name: 'chapters_read', type: 'int' })
  chaptersRead: number;

  @Column({ name: 'volumes_read', type: 'int' })
  volumesRead: number;

  @Column({ name: 'start_date', type: 'date', nullable: true })
  startDate: string | null;

  @Column({ name: 'end_date', type: 'date', nullable: true })
  endDate: string | null;

  @Column({ name: 'is_repeating', type: 'boolean' })
  isRepeating: boolean;

  @Column({ name: 'times_repeated', type: 'int' })
  timesRepeated: number;

  @Column({ name: 'repeat_desire', type: 'smallint' })
  repeatDesire: number;

  @Column({ type: 'text' })
  notes: string;

  @Column({ type: 'smallint' })
  priority: number;

  @DateTimeColumn('created_at')
  createdAt: Date;

  @DateTimeColumn('updated_at')
  updatedAt: Date;

  /** The revision of the write that last wrote this entry (see RatingRevision). */
  @Column({ type: 'int', default: 0 })
  revision: number;
}
