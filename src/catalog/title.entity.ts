import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { VarcharColumn } from '../database/columns';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/** One anime or manga title. Anime and manga have separate id spaces (contract §1). */
@Entity('titles')
@Index('UQ_titles_external_id', ['mediaType', 'externalId'], { unique: true })
export class Title {
  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ name: 'external_id', type: 'int', nullable: true })
  externalId: number | null;

  @VarcharColumn(500)
  title: string;

  @Column({ type: 'int', nullable: true })
  episodes: number | null;

  @Column({ name: 'episode_minutes', type: 'int', nullable: true })
  episodeMinutes: number | null;

  @Column({ type: 'int', nullable: true })
  chapters: number | null;

  @Column({ type: 'int', nullable: true })
  volumes: number | null;
}
