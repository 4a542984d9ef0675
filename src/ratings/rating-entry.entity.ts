import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn, FOREIGN_KEY } from '../database/columns';
import { ENTRY_COLUMNS, entryColumnOptions } from './entry-columns';
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
 * The fields of an entry, each stored in the column that ENTRY_COLUMNS lists for it (in that
 * order: the columns of every entry statement).
 */
abstract class EntryFieldColumns extends EntryKey {
  status: RatingStatus;
  isVisible: boolean;
  publicRating: number;
  publicFraction: number;
  personalRating: number;
  episodesWatched: number;
  chaptersRead: number;
  volumesRead: number;
  startDate: string | null;
  endDate: string | null;
  isRepeating: boolean;
  timesRepeated: number;
  repeatDesire: number;
  notes: string;
  priority: number;
}
for (const entry of ENTRY_COLUMNS) {
  Column(entryColumnOptions(entry))(EntryFieldColumns.prototype, entry.property);
}

/**
 * One user's entry for one title. Rewatch (anime) and reread (manga) share the `repeat` columns;
 * the API names them per media type.
 */
@Entity('rating_entries')
@Index('UQ_rating_entries_user_title', ['userId', 'mediaType', 'titleId'], { unique: true })
@Index('IDX_rating_entries_user_revision', ['userId', 'mediaType', 'revision'])
@ForeignKey('users', ['userId'], ['id'], {
  name: 'FK_rating_entries_user',
  ...FOREIGN_KEY,
  onDelete: 'CASCADE',
})
@ForeignKey('titles', ['mediaType', 'titleId'], ['mediaType', 'id'], {
  name: 'FK_rating_entries_title',
  ...FOREIGN_KEY,
  onDelete: 'RESTRICT',
})
export class RatingEntry extends EntryFieldColumns {
  @CreatedAtColumn()
  createdAt: Date;

  @DateTimeColumn('updated_at')
  updatedAt: Date;

  /** The revision of the write that last wrote this entry (see RatingRevision). */
  @Column({ type: 'int', default: 0 })
  revision: number;
}
