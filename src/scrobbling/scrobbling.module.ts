import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module';
import { RatingsModule } from '../ratings/ratings.module';
import { SettingsModule } from '../settings/settings.module';
import { ScrobbleReceiverController } from './scrobble-receiver.controller';
import { ScrobbleMappingsController, ScrobblersController } from './scrobblers.controller';
import { ScrobblersModule } from './scrobblers.module';
import { ScrobblingService } from './scrobbling.service';

/**
 * Scrobbling (contract §21): scrobblers, the receiver media servers call, the mappings and the
 * unmatched requests. Every scrobble is a write of the one write path (RatingsService), source
 * `scrobble`.
 */
@Module({
  imports: [CatalogModule, RatingsModule, SettingsModule, ScrobblersModule],
  controllers: [ScrobblersController, ScrobbleMappingsController, ScrobbleReceiverController],
  providers: [ScrobblingService],
})
export class ScrobblingModule {}
