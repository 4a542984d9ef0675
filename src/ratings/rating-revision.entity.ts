import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/**
 * The last revision given to a write of the user's entries of one media type. Every write takes
 * this row's lock first and increments it, so one user's writes to one media type commit in
 * revision order.
 */
@Entity('rating_revisions')
export class RatingRevision {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  userId: number;

  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @Column({ type: 'int' })
  revision: number;
}
