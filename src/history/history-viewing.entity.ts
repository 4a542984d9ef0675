import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { FOREIGN_KEY, NULLABLE } from '../database/columns';
import { MediaTypeColumn, type MediaType } from '../media-types/media-type';

export type ViewingState = 'open' | 'finished' | 'abandoned';

/**
 * One viewing of an entry (contract §20): the first watch or read, or a rewatch. The times are
 * kept as the API shows them; `closed_at_ms` is when the closing write committed (the late
 * score's 24 hours count from it, whatever `finished_at` says).
 */
@Entity('history_viewings')
export class HistoryViewing {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'FK_history_viewings_user', ...FOREIGN_KEY, onDelete: 'CASCADE' })
  userId: number;

  @MediaTypeColumn({ primary: true })
  mediaType: MediaType;

  @PrimaryColumn({ name: 'title_id', type: 'int' })
  titleId: number;

  @PrimaryColumn({ type: 'int' })
  number: number;

  @Column({ type: 'varchar', length: 9 })
  state: ViewingState;

  @Column({ name: 'started_at', type: 'varchar', length: 24 })
  startedAt: string;

  @Column({ name: 'finished_at', type: 'varchar', length: 24, ...NULLABLE })
  finishedAt: string | null;

  @Column({ name: 'closed_at_ms', type: 'bigint', ...NULLABLE })
  closedAtMs: string | number | null;

  @Column({ type: 'smallint', ...NULLABLE })
  score: number | null;

  @Column({ type: 'int' })
  progress: number;
}
