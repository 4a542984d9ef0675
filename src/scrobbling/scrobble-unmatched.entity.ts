import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { FOREIGN_KEY, MillisecondsColumn, NULLABLE, VarcharColumn } from '../database/columns';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/** A scrobble no title matched, kept as its parsed fields (never the raw body) until mapped. */
@Entity('scrobble_unmatched')
@Index('IDX_scrobble_unmatched_key', ['userId', 'mediaType', 'keyHash'])
export class ScrobbleUnmatched {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'FK_scrobble_unmatched_user', ...FOREIGN_KEY, onDelete: 'CASCADE' })
  userId: number;

  @MediaTypeColumn()
  mediaType: MediaType;

  /** mappingKey(series, season): the unmatched list's item and the mapping it waits for. */
  @VarcharColumn(64, { name: 'key_hash' })
  keyHash: string;

  @VarcharColumn(500)
  series: string;

  @Column({ type: 'int', ...NULLABLE })
  season: number | null;

  /** The episode (manga: chapter) as the payload gave it. */
  @Column({ type: 'int', ...NULLABLE })
  episode: number | null;

  @Column({ type: 'int', ...NULLABLE })
  volume: number | null;

  /** The payload's ids, as JSON. */
  @VarcharColumn(200)
  ids: string;

  /** The scrobbler's kind (the history event's `client`) and its `visible` when it arrived. */
  @VarcharColumn(8)
  kind: string;

  @Column({ type: 'boolean' })
  visible: boolean;

  @MillisecondsColumn('arrived_at_ms', 'IDX_scrobble_unmatched_arrived')
  arrivedAtMs: number;
}
