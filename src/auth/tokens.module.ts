import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { expiringRowsPurge } from '../purges/purge-registry';
import { UsersModule } from '../users/users.module';
import { AccessTokenVerifier } from './access-token-verifier';
import { AccessToken } from './access-token.entity';
import { BlockedExternalIdentity } from './blocked-external-identity.entity';
import { ExternalIdentitiesService } from './external-identities.service';
import { ExternalIdentity } from './external-identity.entity';
import { ExternalJwtVerifier } from './external-jwt.verifier';
import { OpaqueTokenVerifier } from './opaque-token.verifier';
import { TokensService } from './tokens.service';

@Module({
  imports: [
    UsersModule,
    TypeOrmModule.forFeature([AccessToken, ExternalIdentity, BlockedExternalIdentity]),
  ],
  providers: [
    // Expired tokens answer 401 whether stored or not (contract §16).
    expiringRowsPurge(AccessToken, 'access_tokens', 'expiresAt', (now) => now),
    TokensService,
    ExternalIdentitiesService,
    OpaqueTokenVerifier,
    {
      provide: AccessTokenVerifier,
      inject: [APP_CONFIG, OpaqueTokenVerifier, ExternalIdentitiesService],
      useFactory: (
        config: AppConfig,
        opaque: OpaqueTokenVerifier,
        identities: ExternalIdentitiesService,
      ): AccessTokenVerifier =>
        config.externalJwt
          ? new ExternalJwtVerifier(config.externalJwt, opaque, identities)
          : opaque,
    },
  ],
  exports: [TokensService, ExternalIdentitiesService, AccessTokenVerifier],
})
export class TokensModule {}
