import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PurgeRegistry, purgeRowsBefore } from '../purges/purge-registry';
import { AuthorizationCode } from './entities/authorization-code.entity';
import { RefreshToken } from './entities/refresh-token.entity';

/** Expired authorization codes and refresh tokens go (contract §16). */
@Injectable()
export class OAuthPurges implements OnModuleInit {
  constructor(
    @InjectRepository(AuthorizationCode) private readonly codes: Repository<AuthorizationCode>,
    @InjectRepository(RefreshToken) private readonly refreshTokens: Repository<RefreshToken>,
    private readonly registry: PurgeRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      kind: 'oauth_authorization_codes',
      purgeBatch: (now, limit) => purgeRowsBefore(this.codes, 'expiresAt', now, limit),
    });
    this.registry.register({
      kind: 'oauth_refresh_tokens',
      purgeBatch: (now, limit) => purgeRowsBefore(this.refreshTokens, 'expiresAt', now, limit),
    });
  }
}
