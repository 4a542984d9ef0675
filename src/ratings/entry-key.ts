import { Column, PrimaryGeneratedColumn } from 'typeorm';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/**
 * The columns that say whose entry for which title a row is about: the first columns of
 * `rating_entries` and of the sync module's `sync_deletions` (the deletion of such an entry).
 * Not an entity: each table that extends it has these columns of its own.
 */
export abstract class EntryKey {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @MediaTypeColumn()
  mediaType: MediaType;

  @Column({ name: 'title_id', type: 'int' })
  titleId: number;
}
