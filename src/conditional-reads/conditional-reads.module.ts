import { Module } from '@nestjs/common';
import { VersionedReads } from './versioned-reads';

@Module({ providers: [VersionedReads], exports: [VersionedReads] })
export class ConditionalReadsModule {}
