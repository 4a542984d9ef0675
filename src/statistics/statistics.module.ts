import { Module } from '@nestjs/common';
import { ProfileStatisticsModule } from '../profile/profile-statistics.module';
import { RatingsModule } from '../ratings/ratings.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import {
  STATISTICS_CONTROLLERS,
  StatisticsUnknownMediaTypeController,
} from './statistics.controller';
import { StatisticsRepository } from './statistics.repository';
import { StatisticsService } from './statistics.service';

/**
 * The statistics of contract §22 (GET /v1/my/statistics/{mediaType}); StatisticsService also
 * serves the public variant (public-lists) and the card (cards).
 */
@Module({
  imports: [UsersModule, RatingsModule, SettingsModule, ProfileStatisticsModule],
  controllers: [...STATISTICS_CONTROLLERS, StatisticsUnknownMediaTypeController],
  providers: [StatisticsRepository, StatisticsService],
  exports: [StatisticsService],
})
export class StatisticsModule {}
