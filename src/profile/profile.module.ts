import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { ProfileStatisticsService } from './profile-statistics.service';
import { ProfileController } from './profile.controller';

@Module({
  imports: [UsersModule],
  controllers: [ProfileController],
  providers: [ProfileStatisticsService],
  exports: [ProfileStatisticsService],
})
export class ProfileModule {}
