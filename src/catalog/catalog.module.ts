import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogService } from './catalog.service';
import { Title } from './title.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Title])],
  providers: [CatalogService],
  exports: [CatalogService],
})
export class CatalogModule {}
