import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { OAuthGrant } from './oauth-grant.entity';

@Entity('oauth_refresh_tokens')
@Index('UQ_oauth_refresh_tokens_hash', ['tokenHash'], { unique: true })
@Index('IDX_oauth_refresh_tokens_grant', ['grantId'])
export class RefreshToken {
  @PrimaryGeneratedColumn()
  id: number;

  /** SHA-256 of the token, hex. */
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  @Column({ name: 'grant_id', type: 'int' })
  grantId: number;

  @ManyToOne(() => OAuthGrant, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'grant_id' })
  grant?: OAuthGrant;

  @Column({ type: 'varchar', length: 255 })
  scopes: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt: Date;

  /** Set when the token was exchanged for its successor: presenting it again is reuse. */
  @Column({ name: 'rotated_at', type: 'datetime', nullable: true })
  rotatedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'datetime', nullable: true })
  revokedAt: Date | null;
}
