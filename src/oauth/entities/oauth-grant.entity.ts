import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { User } from '../../users/user.entity';
import { OAuthClient } from './oauth-client.entity';

/**
 * One authorization a user gave a client on the consent page: the family of the authorization
 * code and of every access and refresh token that descends from it. Revoking the grant revokes
 * them all (refresh-token reuse, a reused code, RFC 7009 revocation of a refresh token).
 */
@Entity('oauth_grants')
@Index('IDX_oauth_grants_client', ['oauthClientId'])
@Index('IDX_oauth_grants_user', ['userId'])
export class OAuthGrant {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'oauth_client_id', type: 'int' })
  oauthClientId: number;

  @ManyToOne(() => OAuthClient, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'oauth_client_id' })
  client?: OAuthClient;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: User;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'datetime', nullable: true })
  revokedAt: Date | null;
}
