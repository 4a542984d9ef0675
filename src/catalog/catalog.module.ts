import { Module } from '@nestjs/common';
import { CatalogService } from './catalog.service';
import { TitleChangeHooks } from './title-change-hooks';
import { TitleCrossRefsStore } from './title-cross-refs';

/**
 * The titles (contract §1) and their imports. Depends on no feature module: the modules that show
 * titles read them (ratings, sync) and hear of their changes through TitleChangeHooks.
 */
@Module({
  providers: [CatalogService, TitleChangeHooks, TitleCrossRefsStore],
  exports: [CatalogService, TitleChangeHooks, TitleCrossRefsStore],
})
export class CatalogModule {}
