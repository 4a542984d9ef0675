import { Module } from '@nestjs/common';
import { RatingsModule } from '../ratings/ratings.module';
import { UsersModule } from '../users/users.module';
import { MAL_LISTS_CONTROLLERS, UnknownMediaTypeListsController } from './mal-lists.controller';
import { MalListsService } from './mal-lists.service';

/** MyAnimeList XML export and import of a user's list (contract §13). */
@Module({
  imports: [RatingsModule, UsersModule],
  controllers: [...MAL_LISTS_CONTROLLERS, UnknownMediaTypeListsController],
  providers: [MalListsService],
  exports: [MalListsService],
})
export class MalListsModule {}
