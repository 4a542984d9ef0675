import { Entity, Index, PrimaryColumn } from 'typeorm';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/** The key (title-names.ts) of a title's name: its `title` and each synonym (contract §21). */
@Entity('title_names')
@Index('IDX_title_names_key', ['mediaType', 'nameKey'])
export class TitleName {
  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ name: 'title_id', type: 'int' })
  titleId: number;

  @PrimaryColumn({ name: 'name_key', type: 'varchar', length: 64 })
  nameKey: string;
}
