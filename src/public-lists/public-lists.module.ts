import { ConditionalReadsModule } from '../conditional-reads/conditional-reads.module';
import { Module } from '@nestjs/common';
import { ProfileModule } from '../profile/profile.module';
import { RatingsModule } from '../ratings/ratings.module';
import { UsersModule } from '../users/users.module';
import {
  PUBLIC_LIST_CONTROLLERS,
  PublicListUnknownMediaTypeController,
} from './public-lists.controller';
import { PublicProfileController } from './public-profile.controller';
import {
  PUBLIC_STATISTICS_CONTROLLERS,
  PublicStatisticsUnknownMediaTypeController,
} from './public-statistics.controller';
import { StatisticsModule } from '../statistics/statistics.module';

/**
 * Reads of another user's visible entries (contract §18). AppModule imports it only with
 * PUBLIC_LISTS=true: without it, its paths are unknown paths (404).
 */
@Module({
  imports: [RatingsModule, UsersModule, ProfileModule, ConditionalReadsModule, StatisticsModule],
  controllers: [
    ...PUBLIC_LIST_CONTROLLERS,
    PublicListUnknownMediaTypeController,
    PublicProfileController,
    ...PUBLIC_STATISTICS_CONTROLLERS,
    PublicStatisticsUnknownMediaTypeController,
  ],
})
export class PublicListsModule {}
