import { Module } from '@nestjs/common';
import { RootController } from './root.controller';

/** `GET /`; the docs page itself is mounted by configureApp (setupDocsPage). */
@Module({ controllers: [RootController] })
export class DocsModule {}
