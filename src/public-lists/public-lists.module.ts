import { Module } from '@nestjs/common';
import { ProfileModule } from '../profile/profile.module';
import { RatingsModule } from '../ratings/ratings.module';
import { UsersModule } from '../users/users.module';
import {
  PublicAnimeListController,
  PublicListUnknownMediaTypeController,
  PublicMangaListController,
} from './public-lists.controller';
import { PublicProfileController } from './public-profile.controller';

/**
 * Reads of another user's visible entries (decisions §18). AppModule imports it only with
 * PUBLIC_LISTS=true: without it, its paths are unknown paths (404).
 */
@Module({
  imports: [RatingsModule, UsersModule, ProfileModule],
  controllers: [
    PublicAnimeListController,
    PublicMangaListController,
    PublicListUnknownMediaTypeController,
    PublicProfileController,
  ],
})
export class PublicListsModule {}
