import { Module } from '@nestjs/common';
import { RatingsModule } from '../ratings/ratings.module';
import { UsersModule } from '../users/users.module';
import { ProfileStatisticsService } from './profile-statistics.service';
import { ProfileController } from './profile.controller';

@Module({
  imports: [UsersModule, RatingsModule],
  controllers: [ProfileController],
  providers: [ProfileStatisticsService],
  exports: [ProfileStatisticsService],
})
export class ProfileModule {}
