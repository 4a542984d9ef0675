import { Entity, PrimaryColumn } from 'typeorm';
import { VarcharColumn } from '../database/columns';

/** The secret that signs sync cursors: one row, made by the first instance that needs it. */
@Entity('sync_keys')
export class SyncKey {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @VarcharColumn(64)
  secret: string;
}
