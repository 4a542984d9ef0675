import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

/**
 * A title's cross-reference id on another service (contract §21: `anilist`, `anidb`, `kitsu`).
 * The key makes one id of a kind name one title of a media type at most.
 */
@Entity('title_refs')
@Index('IDX_title_refs_title', ['mediaType', 'titleId'])
export class TitleRef {
  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  kind: string;

  @PrimaryColumn({ name: 'ref_id', type: 'int' })
  refId: number;

  @Column({ name: 'title_id', type: 'int' })
  titleId: number;
}
