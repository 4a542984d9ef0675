import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { FOREIGN_KEY } from '../database/columns';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/**
 * The last revision given to a write of the user's entries of one media type. Every write takes
 * this row's lock first and increments it, so one user's writes to one media type commit in
 * revision order.
 */
@Entity('rating_revisions')
export class RatingRevision {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'FK_rating_revisions_user', ...FOREIGN_KEY, onDelete: 'CASCADE' })
  userId: number;

  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @Column({ type: 'int' })
  revision: number;

  /** Moved by catalog imports that change a title the list holds (see ListVersionsRepository). */
  @Column({ name: 'catalog_version', type: 'int', default: 0 })
  catalogVersion: number;

  /** Moved by what changes the list as other users see it (see ListVersionsRepository). */
  @Column({ name: 'public_version', type: 'int', default: 0 })
  publicVersion: number;
}
