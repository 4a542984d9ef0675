import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { FOREIGN_KEY } from '../database/columns';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/**
 * One tag of a title (contract §22), at its position in the title's list: a row per tag, so that
 * statistics group entries by tag in SQL on both databases. On MySQL/MariaDB the column compares
 * code point by code point, trailing spaces included (utf8mb4_nopad_bin on MariaDB, utf8mb4_0900_bin on MySQL 8: set by the migration).
 */
@Entity('title_tags')
@ForeignKey('titles', ['mediaType', 'titleId'], ['mediaType', 'id'], {
  name: 'FK_title_tags_title',
  ...FOREIGN_KEY,
  onDelete: 'CASCADE',
})
export class TitleTag {
  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ name: 'title_id', type: 'int' })
  titleId: number;

  @PrimaryColumn({ type: 'smallint' })
  position: number;

  @Column({ type: 'varchar', length: 64 })
  tag: string;
}
