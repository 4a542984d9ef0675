import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { RatingEntry } from './rating-entry.entity';
import { RatingRequestGuard } from './rating-request.guard';
import { AnimeRatingsController, MangaRatingsController } from './ratings.controller';
import { RatingsService } from './ratings.service';
import { UnknownMediaTypeController } from './unknown-media-type.controller';

@Module({
  imports: [TypeOrmModule.forFeature([RatingEntry]), CatalogModule],
  controllers: [AnimeRatingsController, MangaRatingsController, UnknownMediaTypeController],
  providers: [RatingsService, RatingRequestGuard],
  exports: [RatingsService],
})
export class RatingsModule {}
