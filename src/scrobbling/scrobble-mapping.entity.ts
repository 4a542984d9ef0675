import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { FOREIGN_KEY, NULLABLE, VarcharColumn } from '../database/columns';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/** The user's choice of title for a (series name, season) that media servers send (contract §21). */
@Entity('scrobble_mappings')
export class ScrobbleMapping {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'FK_scrobble_mappings_user', ...FOREIGN_KEY, onDelete: 'CASCADE' })
  userId: number;

  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  @VarcharColumn(500)
  series: string;

  @Column({ type: 'int', ...NULLABLE })
  season: number | null;

  @Column({ name: 'title_id', type: 'int' })
  titleId: number;

  @Column({ name: 'episode_offset', type: 'int' })
  episodeOffset: number;
}
