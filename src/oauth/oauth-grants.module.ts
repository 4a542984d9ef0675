import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TokensModule } from '../auth/tokens.module';
import { ClientRemoval } from './client-removal';
import { AuthorizationCode } from './entities/authorization-code.entity';
import { OAuthGrant } from './entities/oauth-grant.entity';
import { RefreshToken } from './entities/refresh-token.entity';
import { GrantsService } from './grants.service';
import { OAuthClientsModule } from './oauth-clients.module';
import { ScrobblersModule } from '../scrobbling/scrobblers.module';

/**
 * Grants with their codes and refresh tokens, for the admin CLI (a user's tokens, deleting a
 * client or a user) as well as the authorization server.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([OAuthGrant, AuthorizationCode, RefreshToken]),
    OAuthClientsModule,
    TokensModule,
    ScrobblersModule,
  ],
  providers: [GrantsService, ClientRemoval],
  exports: [GrantsService, ClientRemoval],
})
export class OAuthGrantsModule {}
