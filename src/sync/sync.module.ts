import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module';
import { RatingsModule } from '../ratings/ratings.module';
import { SyncHooksModule } from './sync-hooks.module';
import { SyncKeyService } from './sync-key.service';
import { SyncPurgeService } from './sync-purge.service';
import { CHANGES_CONTROLLERS, UnknownMediaTypeChangesController } from './sync.controller';
import { SyncService } from './sync.service';

/** Incremental sync (contract §12): the changes feed, its cursors and the deletions it reports. */
@Module({
  imports: [RatingsModule, CatalogModule, SyncHooksModule],
  controllers: [...CHANGES_CONTROLLERS, UnknownMediaTypeChangesController],
  providers: [SyncService, SyncKeyService, SyncPurgeService],
})
export class SyncModule {}
