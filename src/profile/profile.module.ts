import { ConditionalReadsModule } from '../conditional-reads/conditional-reads.module';
import { Module } from '@nestjs/common';
import { RatingsModule } from '../ratings/ratings.module';
import { UsersModule } from '../users/users.module';
import { ProfileStatisticsModule } from './profile-statistics.module';
import { ProfileController } from './profile.controller';

@Module({
  imports: [UsersModule, RatingsModule, ConditionalReadsModule, ProfileStatisticsModule],
  controllers: [ProfileController],
  exports: [ProfileStatisticsModule],
})
export class ProfileModule {}
