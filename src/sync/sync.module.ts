import { Module, OnModuleInit } from '@nestjs/common';
import { RatingWriteHooks } from '../ratings/rating-write-hooks';
import { RatingsModule } from '../ratings/ratings.module';
import { SyncDeletionsRepository } from './sync-deletions.repository';
import { SyncKeyService } from './sync-key.service';
import {
  AnimeChangesController,
  MangaChangesController,
  UnknownMediaTypeChangesController,
} from './sync.controller';
import { SyncService } from './sync.service';

/** Incremental sync (decisions §12): the changes feed and the deletions it reports. */
@Module({
  imports: [RatingsModule],
  controllers: [AnimeChangesController, MangaChangesController, UnknownMediaTypeChangesController],
  providers: [SyncService, SyncKeyService, SyncDeletionsRepository],
  exports: [SyncDeletionsRepository],
})
export class SyncModule implements OnModuleInit {
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
