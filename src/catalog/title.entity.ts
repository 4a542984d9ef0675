import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { NULLABLE, VarcharColumn } from '../database/columns';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/** One anime or manga title. Anime and manga have separate id spaces (contract §1). */
@Entity('titles')
@Index('UQ_titles_external_id', ['mediaType', 'externalId'], { unique: true })
export class Title {
  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ name: 'external_id', type: 'int', ...NULLABLE })
  externalId: number | null;

  @VarcharColumn(500)
  title: string;

  @Column({ type: 'int', ...NULLABLE })
  episodes: number | null;

  @Column({ name: 'episode_minutes', type: 'int', ...NULLABLE })
  episodeMinutes: number | null;

  @Column({ type: 'int', ...NULLABLE })
  chapters: number | null;

  @Column({ type: 'int', ...NULLABLE })
  volumes: number | null;

  /** Contract §22's facts; the tags are rows of TitleTag. */
  @Column({ type: 'int', ...NULLABLE })
  year: number | null;

  @VarcharColumn(6, { nullable: true })
  season: string | null;

  @VarcharColumn(8, { nullable: true })
  format: string | null;
}
