import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { TitleChangeHooks } from '../catalog/title-change-hooks';
import { ConditionalReadsModule } from '../conditional-reads/conditional-reads.module';
import { UsersModule } from '../users/users.module';
import { RatingEntry } from './rating-entry.entity';
import { RatingWriteHooks } from './rating-write-hooks';
import { ListVersionsRepository } from './list-versions.repository';
import { RatingsRepository } from './ratings.repository';
import { RatingRequestGuard } from './rating-request.guard';
import { RATINGS_CONTROLLERS } from './ratings.controller';
import { RatingsService } from './ratings.service';
import { UnknownMediaTypeController } from './unknown-media-type.controller';

/**
 * Users' entries and their lists. Reads the catalog's `titles` (joined to entries, see
 * RatingsRepository) and the users' `users` (a list's state, ListVersionsRepository), hence the imports; a catalog write
 * moves the versions of the lists holding its titles through the catalog's TitleChangeHooks.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([RatingEntry]),
    CatalogModule,
    UsersModule,
    ConditionalReadsModule,
  ],
  controllers: [...RATINGS_CONTROLLERS, UnknownMediaTypeController],
  providers: [
    RatingsService,
    RatingsRepository,
    ListVersionsRepository,
    RatingWriteHooks,
    RatingRequestGuard,
  ],
  exports: [RatingsService, RatingWriteHooks],
})
export class RatingsModule implements OnModuleInit {
  constructor(
    private readonly titleChanges: TitleChangeHooks,
    private readonly ratings: RatingsService,
  ) {}

  onModuleInit(): void {
    this.titleChanges.register((em, mediaType, titleIds) =>
      this.ratings.titlesChanged(em, mediaType, titleIds),
    );
  }
}
