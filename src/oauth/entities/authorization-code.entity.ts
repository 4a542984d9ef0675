import { Entity } from 'typeorm';
import { IssuedCredential, SecretHashColumn } from '../../auth/issued-credential';
import { BelongsTo, DateTimeColumn, VarcharColumn } from '../../database/columns';
import { OAuthGrant } from './oauth-grant.entity';

@Entity('oauth_authorization_codes')
export class AuthorizationCode extends IssuedCredential {
  @SecretHashColumn('code_hash', 'UQ_oauth_authorization_codes_hash')
  codeHash: string;

  @BelongsTo(() => OAuthGrant, 'grant_id', 'grant', {
    index: 'IDX_oauth_authorization_codes_grant',
    foreignKey: 'FK_oauth_authorization_codes_grant',
  })
  grantId: number;
  grant?: OAuthGrant;

  @VarcharColumn(2048, { name: 'redirect_uri' })
  redirectUri: string;

  @VarcharColumn(128, { name: 'code_challenge' })
  codeChallenge: string;

  /** Always S256: plain is refused at the authorization endpoint. */
  @VarcharColumn(10, { name: 'code_challenge_method' })
  codeChallengeMethod: string;

  /** Set by the one exchange a code allows. */
  @DateTimeColumn('used_at', { nullable: true })
  usedAt: Date | null;
}
