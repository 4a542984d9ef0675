import { Module } from '@nestjs/common';
import { RatingsModule } from '../ratings/ratings.module';
import { ProfileStatisticsService } from './profile-statistics.service';

/** The statistics alone, for the profile endpoints and the admin CLI (`users export`). */
@Module({
  imports: [RatingsModule],
  providers: [ProfileStatisticsService],
  exports: [ProfileStatisticsService],
})
export class ProfileStatisticsModule {}
