import { Entity, PrimaryGeneratedColumn } from 'typeorm';
import { BelongsTo, CreatedAtColumn, RevokedAtColumn } from '../../database/columns';
import { User } from '../../users/user.entity';
import { OAuthClient } from './oauth-client.entity';

/**
 * One authorization a user gave a client on the consent page: the family of the authorization
 * code and of every access and refresh token that descends from it. Revoking the grant revokes
 * them all (refresh-token reuse, a reused code, RFC 7009 revocation of a refresh token).
 */
@Entity('oauth_grants')
export class OAuthGrant {
  @PrimaryGeneratedColumn()
  id: number;

  @BelongsTo(() => OAuthClient, 'oauth_client_id', 'client', {
    index: 'IDX_oauth_grants_client',
    foreignKey: 'FK_oauth_grants_client',
  })
  oauthClientId: number;
  client?: OAuthClient;

  @BelongsTo(() => User, 'user_id', 'user', {
    index: 'IDX_oauth_grants_user',
    foreignKey: 'FK_oauth_grants_user',
  })
  userId: number;
  user?: User;

  @CreatedAtColumn()
  createdAt: Date;

  @RevokedAtColumn()
  revokedAt: Date | null;
}
