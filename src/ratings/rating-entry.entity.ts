import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn, FOREIGN_KEY } from '../database/columns';
import { ENTRY_COLUMNS, entryColumnOptions, type EntryFields } from '../media-types/entry-columns';
import { EntryKey } from './entry-key';

/**
 * The fields of an entry, each stored in the column that ENTRY_COLUMNS lists for it (in that
 * order: the columns of every entry statement). The properties are declared by that list
 * (EntryFields), through the interface of the same name below: a field is added in one place.
 */
/* eslint-disable @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type --
   the interface only declares the properties whose columns the loop below adds to the class */
abstract class EntryFieldColumns extends EntryKey {}
interface EntryFieldColumns extends EntryFields {}
/* eslint-enable @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type */
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
