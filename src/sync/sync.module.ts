import { Module } from '@nestjs/common';
import { RatingsModule } from '../ratings/ratings.module';
import { SyncHooksModule } from './sync-hooks.module';
import { SyncKeyService } from './sync-key.service';
import { SyncPurgeService } from './sync-purge.service';
import {
  AnimeChangesController,
  MangaChangesController,
  UnknownMediaTypeChangesController,
} from './sync.controller';
import { SyncService } from './sync.service';

/** Incremental sync (decisions §12): the changes feed, its cursors and the deletions it reports. */
@Module({
  imports: [RatingsModule, SyncHooksModule],
  controllers: [AnimeChangesController, MangaChangesController, UnknownMediaTypeChangesController],
  providers: [SyncService, SyncKeyService, SyncPurgeService],
})
export class SyncModule {}
