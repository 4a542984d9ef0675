import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The secret that signs sync cursors: one row, made by the first instance that needs it. */
@Entity('sync_keys')
export class SyncKey {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ type: 'varchar', length: 64 })
  secret: string;
}
