import { Global, Module } from '@nestjs/common';
import { PurgeRegistry } from './purge-registry';
import { PurgeRunner } from './purge-runner.service';

/** Global: each module registers the purges of its own tables with the PurgeRegistry. */
@Global()
@Module({ providers: [PurgeRegistry, PurgeRunner], exports: [PurgeRegistry, PurgeRunner] })
export class PurgesModule {}
