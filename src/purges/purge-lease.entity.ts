import { Entity, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, VarcharColumn } from '../database/columns';

/** Who runs the purges now: one instance at a time (contract §16). */
@Entity('purge_leases')
export class PurgeLease {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name: string;

  @VarcharColumn(64, { nullable: true })
  holder: string | null;

  @DateTimeColumn('expires_at')
  expiresAt: Date;
}
