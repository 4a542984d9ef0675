import { Module } from '@nestjs/common';
import { RatingsModule } from '../ratings/ratings.module';
import { UsersModule } from '../users/users.module';
import {
  PublicAnimeListController,
  PublicListUnknownMediaTypeController,
  PublicMangaListController,
} from './public-lists.controller';

/**
 * Reads of another user's visible entries (decisions §18). AppModule imports it only with
 * PUBLIC_LISTS=true: without it, its paths are unknown paths (404).
 */
@Module({
  imports: [RatingsModule, UsersModule],
  controllers: [
    PublicAnimeListController,
    PublicMangaListController,
    PublicListUnknownMediaTypeController,
  ],
})
export class PublicListsModule {}
