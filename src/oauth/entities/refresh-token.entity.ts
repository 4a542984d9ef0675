import { Entity } from 'typeorm';
import { IssuedCredential, SecretHashColumn } from '../../auth/issued-credential';
import { BelongsTo, DateTimeColumn, RevokedAtColumn } from '../../database/columns';
import { OAuthGrant } from './oauth-grant.entity';

@Entity('oauth_refresh_tokens')
export class RefreshToken extends IssuedCredential {
  @SecretHashColumn('token_hash', 'UQ_oauth_refresh_tokens_hash')
  tokenHash: string;

  @BelongsTo(() => OAuthGrant, 'grant_id', 'grant', {
    index: 'IDX_oauth_refresh_tokens_grant',
    foreignKey: 'FK_oauth_refresh_tokens_grant',
  })
  grantId: number;
  grant?: OAuthGrant;

  /** Set when the token was exchanged for its successor: presenting it again is reuse. */
  @DateTimeColumn('rotated_at', { nullable: true })
  rotatedAt: Date | null;

  @RevokedAtColumn()
  revokedAt: Date | null;
}
