import { Column, Entity, ForeignKey, Index } from 'typeorm';
import {
  BelongsTo,
  FOREIGN_KEY,
  NULLABLE,
  RevokedAtColumn,
  VarcharColumn,
} from '../database/columns';
import { User } from '../users/user.entity';
import { IssuedCredential, SecretHashColumn } from './issued-credential';

@Entity('access_tokens')
@Index('IDX_access_tokens_grant', ['grantId'])
export class AccessToken extends IssuedCredential {
  @SecretHashColumn('token_hash', 'UQ_access_tokens_hash')
  tokenHash: string;

  @BelongsTo(() => User, 'user_id', 'user', {
    index: 'IDX_access_tokens_user',
    foreignKey: 'FK_access_tokens_user',
  })
  userId: number;
  user?: User;

  /** The OAuth client the token was issued to; null for tokens from `tokens issue`. */
  @VarcharColumn(64, { name: 'client_id', nullable: true })
  clientId: string | null;

  /**
   * The OAuth grant (authorization) the token belongs to, so that revoking the grant (refresh-token
   * reuse, a reused code, RFC 7009) revokes its access tokens too; null outside the OAuth flow.
   */
  @Column({ name: 'grant_id', type: 'int', ...NULLABLE })
  @ForeignKey('oauth_grants', {
    name: 'FK_access_tokens_grant',
    ...FOREIGN_KEY,
    onDelete: 'CASCADE',
  })
  grantId: number | null;

  @RevokedAtColumn()
  revokedAt: Date | null;
}
