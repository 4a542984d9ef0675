import { Entity, PrimaryColumn } from 'typeorm';
import { DateTimeColumn } from '../database/columns';

/**
 * A pair (`iss`, `sub`) whose local user was deleted: its tokens are refused instead of creating
 * the user again (contract §19), until `users unblock` lifts it.
 */
@Entity('blocked_external_identities')
export class BlockedExternalIdentity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  issuer: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  subject: string;

  @DateTimeColumn('blocked_at')
  blockedAt: Date;
}
