import { Entity, PrimaryColumn } from 'typeorm';
import { MillisecondsColumn } from '../database/columns';

/**
 * A temporary denial of a client address (contract §4), recorded when it starts so that the CLI
 * can list and lift it whichever instance denied it: the counters that decide it may live in one
 * process's memory.
 */
@Entity('ip_denials')
export class IpDenial {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  address: string;

  @MillisecondsColumn('denied_at')
  deniedAt: number;

  @MillisecondsColumn('denied_until', 'IDX_ip_denials_until')
  deniedUntil: number;
}
