import { Column, Entity, Index } from 'typeorm';
import { IssuedCredential } from '../../auth/issued-credential';
import { BelongsTo, DateTimeColumn } from '../../database/columns';
import { OAuthGrant } from './oauth-grant.entity';

@Entity('oauth_refresh_tokens')
@Index('UQ_oauth_refresh_tokens_hash', ['tokenHash'], { unique: true })
@Index('IDX_oauth_refresh_tokens_grant', ['grantId'])
export class RefreshToken extends IssuedCredential {
  /** SHA-256 of the token, hex. */
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  @BelongsTo(() => OAuthGrant, 'grant_id', 'grant')
  grantId: number;
  grant?: OAuthGrant;

  /** Set when the token was exchanged for its successor: presenting it again is reuse. */
  @DateTimeColumn('rotated_at', { nullable: true })
  rotatedAt: Date | null;

  @DateTimeColumn('revoked_at', { nullable: true })
  revokedAt: Date | null;
}
