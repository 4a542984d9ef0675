import { Column, Entity, PrimaryColumn } from 'typeorm';

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

  @Column({ name: 'blocked_at', type: 'datetime' })
  blockedAt: Date;
}
