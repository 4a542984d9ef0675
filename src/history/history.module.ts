import { ConditionalReadsModule } from '../conditional-reads/conditional-reads.module';
import { Module, OnModuleInit } from '@nestjs/common';
import { RatingWriteHooks } from '../ratings/rating-write-hooks';
import { RatingsModule } from '../ratings/ratings.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { HISTORY_CONTROLLERS, UnknownMediaTypeHistoryController } from './history.controller';
import { HistoryRecorder } from './history-recorder';
import { HistoryRepository } from './history.repository';
import { HistoryService } from './history.service';

/**
 * History (contract §20): events and viewings, written by a hook of the entry write path inside
 * each write's transaction, for every process that writes entries (the server and the CLI);
 * read, deleted and reverted through its routes.
 */
@Module({
  imports: [RatingsModule, SettingsModule, UsersModule, ConditionalReadsModule],
  controllers: [...HISTORY_CONTROLLERS, UnknownMediaTypeHistoryController],
  providers: [HistoryRepository, HistoryRecorder, HistoryService],
  exports: [HistoryService, HistoryRecorder],
})
export class HistoryModule implements OnModuleInit {
  constructor(
    private readonly hooks: RatingWriteHooks,
    private readonly recorder: HistoryRecorder,
  ) {}

  onModuleInit(): void {
    this.hooks.register((em, change) => this.recorder.record(em, change));
  }
}
