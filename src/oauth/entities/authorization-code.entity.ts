import { Column, Entity } from 'typeorm';
import { IssuedCredential, SecretHashColumn } from '../../auth/issued-credential';
import { BelongsTo, DateTimeColumn } from '../../database/columns';
import { OAuthGrant } from './oauth-grant.entity';

@Entity('oauth_authorization_codes')
export class AuthorizationCode extends IssuedCredential {
  @SecretHashColumn('code_hash', 'UQ_oauth_authorization_codes_hash')
  codeHash: string;

  @BelongsTo(() => OAuthGrant, 'grant_id', 'grant', 'IDX_oauth_authorization_codes_grant')
  grantId: number;
  grant?: OAuthGrant;

  @Column({ name: 'redirect_uri', type: 'varchar', length: 2048 })
  redirectUri: string;

  @Column({ name: 'code_challenge', type: 'varchar', length: 128 })
  codeChallenge: string;

  /** Always S256: plain is refused at the authorization endpoint. */
  @Column({ name: 'code_challenge_method', type: 'varchar', length: 10 })
  codeChallengeMethod: string;

  /** Set by the one exchange a code allows. */
  @DateTimeColumn('used_at', { nullable: true })
  usedAt: Date | null;
}
