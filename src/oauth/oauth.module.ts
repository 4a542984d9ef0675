import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TokensModule } from '../auth/tokens.module';
import { expiringRowsPurge } from '../purges/purge-registry';
import { UsersModule } from '../users/users.module';
import { AuthorizationService } from './authorization.service';
import { AuthorizeController } from './authorize.controller';
import { AuthorizationCode } from './entities/authorization-code.entity';
import { OAuthGrant } from './entities/oauth-grant.entity';
import { RefreshToken } from './entities/refresh-token.entity';
import { LoginThrottleService } from './login-throttle.service';
import { MetadataController } from './metadata.controller';
import { OAuthClientsModule } from './oauth-clients.module';
import { OAuthGrantsModule } from './oauth-grants.module';
import { SignInResetsModule } from './sign-in-resets.module';
import { OAuthModel } from './oauth.model';
import { OAuthServerService } from './oauth-server.service';
import { TokenController } from './token.controller';
import { TokenLifecycleService } from './token-lifecycle.service';

/**
 * The OAuth 2.0 authorization server: /oauth/authorize, /oauth/token, /oauth/revoke,
 * /oauth/introspect and /.well-known/oauth-authorization-server. Its access tokens go to the
 * access_tokens table through TokensService, so the API accepts them like CLI-issued ones.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([OAuthGrant, AuthorizationCode, RefreshToken]),
    OAuthClientsModule,
    OAuthGrantsModule,
    SignInResetsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [AuthorizeController, TokenController, MetadataController],
  providers: [
    OAuthModel,
    OAuthServerService,
    AuthorizationService,
    TokenLifecycleService,
    LoginThrottleService,
    expiringRowsPurge(AuthorizationCode, 'oauth_authorization_codes', 'expiresAt', (now) => now),
    expiringRowsPurge(RefreshToken, 'oauth_refresh_tokens', 'expiresAt', (now) => now),
  ],
})
export class OAuthModule {}
