import { Module, OnModuleInit } from '@nestjs/common';
import { RatingWriteHooks } from '../ratings/rating-write-hooks';
import { RatingsModule } from '../ratings/ratings.module';
import { SyncDeletionsRepository } from './sync-deletions.repository';

/**
 * The sync module's part of the entry write path, for every process that writes entries (the
 * server and the CLI): a deletion is recorded in the deletion's transaction, and forgotten in the
 * transaction that creates the entry again.
 */
@Module({
  imports: [RatingsModule],
  providers: [SyncDeletionsRepository],
  exports: [SyncDeletionsRepository],
})
export class SyncHooksModule implements OnModuleInit {
  constructor(
    private readonly hooks: RatingWriteHooks,
    private readonly deletions: SyncDeletionsRepository,
  ) {}

  onModuleInit(): void {
    this.hooks.register(async (em, change) => {
      if (change.kind === 'deleted') {
        await this.deletions.recordDeletion(
          em,
          change.userId,
          change.mediaType,
          change.titleId,
          change.revision,
        );
      } else if (change.kind === 'created') {
        await this.deletions.forgetDeletion(em, change.userId, change.mediaType, change.titleId);
      }
    });
  }
}
