import { ConditionalReadsModule } from '../conditional-reads/conditional-reads.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { RatingEntry } from './rating-entry.entity';
import { RatingWriteHooks } from './rating-write-hooks';
import { RatingsRepository } from './ratings.repository';
import { RatingRequestGuard } from './rating-request.guard';
import { RATINGS_CONTROLLERS } from './ratings.controller';
import { RatingsService } from './ratings.service';
import { UnknownMediaTypeController } from './unknown-media-type.controller';

@Module({
  imports: [TypeOrmModule.forFeature([RatingEntry]), UsersModule, ConditionalReadsModule],
  controllers: [...RATINGS_CONTROLLERS, UnknownMediaTypeController],
  providers: [RatingsService, RatingsRepository, RatingWriteHooks, RatingRequestGuard],
  exports: [RatingsService, RatingsRepository, RatingWriteHooks],
})
export class RatingsModule {}
