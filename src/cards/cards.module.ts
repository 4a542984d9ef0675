import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { StatisticsModule } from '../statistics/statistics.module';
import { UsersModule } from '../users/users.module';
import { CardsController } from './cards.controller';

/**
 * The public SVG card of contract §22. AppModule imports it only with PUBLIC_CARDS=true: without
 * it, its path is an unknown path (404).
 */
@Module({
  imports: [UsersModule, SettingsModule, StatisticsModule],
  controllers: [CardsController],
})
export class CardsModule {}
