import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BelongsTo, DateTimeColumn } from '../../database/columns';
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

  @BelongsTo(() => OAuthGrant, 'grant_id', 'grant')
  grantId: number;
  grant?: OAuthGrant;

  @Column({ type: 'varchar', length: 255 })
  scopes: string;

  @DateTimeColumn('created_at')
  createdAt: Date;

  @DateTimeColumn('expires_at')
  expiresAt: Date;

  /** Set when the token was exchanged for its successor: presenting it again is reuse. */
  @DateTimeColumn('rotated_at', { nullable: true })
  rotatedAt: Date | null;

  @DateTimeColumn('revoked_at', { nullable: true })
  revokedAt: Date | null;
}
