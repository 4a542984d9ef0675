import { Column, Entity, PrimaryColumn } from 'typeorm';
import { DateTimeColumn } from '../database/columns';

/** Who runs the purges now: one instance at a time (contract §16). */
@Entity('purge_leases')
export class PurgeLease {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  holder: string | null;

  @DateTimeColumn('expires_at')
  expiresAt: Date;
}
