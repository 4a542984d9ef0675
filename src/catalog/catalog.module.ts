import { Module } from '@nestjs/common';
import { RatingsModule } from '../ratings/ratings.module';
import { CatalogService } from './catalog.service';

@Module({
  imports: [RatingsModule],
  providers: [CatalogService],
  exports: [CatalogService],
})
export class CatalogModule {}
