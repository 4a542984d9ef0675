import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PurgeRegistry, purgeRowsBefore } from '../purges/purge-registry';
import { AccessToken } from './access-token.entity';

/** Expired access tokens go (contract §16); they answer 401 whether stored or not. */
@Injectable()
export class AccessTokenPurge implements OnModuleInit {
  constructor(
    @InjectRepository(AccessToken) private readonly tokens: Repository<AccessToken>,
    // Absent in the CLI, which runs no purges.
    @Optional() private readonly registry?: PurgeRegistry,
  ) {}

  onModuleInit(): void {
    this.registry?.register({
      kind: 'access_tokens',
      purgeBatch: (now, limit) => purgeRowsBefore(this.tokens, 'expiresAt', now, limit),
    });
  }
}
