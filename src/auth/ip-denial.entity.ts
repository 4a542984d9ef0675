import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Unix milliseconds: bigint comes back as a string from mysql2. */
const MILLISECONDS = {
  to: (value: number) => value,
  from: (value: string | number) => Number(value),
};

/**
 * A temporary denial of a client address (contract §4), recorded when it starts so that the CLI
 * can list and lift it whichever instance denied it: the counters that decide it may live in one
 * process's memory.
 */
@Entity('ip_denials')
@Index('IDX_ip_denials_until', ['deniedUntil'])
export class IpDenial {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  address: string;

  @Column({ name: 'denied_at', type: 'bigint', transformer: MILLISECONDS })
  deniedAt: number;

  @Column({ name: 'denied_until', type: 'bigint', transformer: MILLISECONDS })
  deniedUntil: number;
}
