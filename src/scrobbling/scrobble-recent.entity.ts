import { Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { FOREIGN_KEY, MillisecondsColumn } from '../database/columns';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/**
 * The last time a scrobbler sent a title's episode: the 10-minute duplicate window (contract §21),
 * read and written in the scrobble's transaction, so that it holds across instances.
 */
@Entity('scrobble_recent')
export class ScrobbleRecent {
  @PrimaryColumn({ name: 'scrobbler_id', type: 'varchar', length: 32 })
  @ForeignKey('scrobblers', {
    name: 'FK_scrobble_recent_scrobbler',
    ...FOREIGN_KEY,
    onDelete: 'CASCADE',
  })
  scrobblerId: string;

  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ name: 'title_id', type: 'int' })
  titleId: number;

  @PrimaryColumn({ type: 'int' })
  episode: number;

  @MillisecondsColumn('at_ms')
  atMs: number;
}
