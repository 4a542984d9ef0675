import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MediaType } from '../media-types/media-type';

export type ViewingState = 'open' | 'finished' | 'abandoned';

/**
 * One viewing of an entry (contract §20): the first watch or read, or a rewatch. The times are
 * kept as the API shows them; `closed_at_ms` is when the closing write committed (the late
 * score's 24 hours count from it, whatever `finished_at` says).
 */
@Entity('history_viewings')
export class HistoryViewing {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  userId: number;

  @PrimaryColumn({ name: 'media_type', type: 'varchar', length: 5 })
  mediaType: MediaType;

  @PrimaryColumn({ name: 'title_id', type: 'int' })
  titleId: number;

  @PrimaryColumn({ type: 'int' })
  number: number;

  @Column({ type: 'varchar', length: 9 })
  state: ViewingState;

  @Column({ name: 'started_at', type: 'varchar', length: 24 })
  startedAt: string;

  @Column({ name: 'finished_at', type: 'varchar', length: 24, nullable: true })
  finishedAt: string | null;

  @Column({ name: 'closed_at_ms', type: 'bigint', nullable: true })
  closedAtMs: string | number | null;

  @Column({ type: 'smallint', nullable: true })
  score: number | null;

  @Column({ type: 'int' })
  progress: number;
}
