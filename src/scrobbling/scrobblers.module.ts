import { Module, Optional, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { expiringRowsPurge, PurgeRegistry } from '../purges/purge-registry';
import { ScrobbleLedger, UNMATCHED_KEPT_MS } from './scrobble-ledger';
import { ScrobbleUnmatched } from './scrobble-unmatched.entity';
import { ScrobblersService } from './scrobblers.service';

/**
 * The scrobblers and what they leave (mappings, unmatched requests): what the revocations, the
 * export and the erasure of an account ask for, with no dependency on the receiver's. The purges
 * (contract §16) remove unmatched requests after 90 days and recent scrobbles past the window.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ScrobbleUnmatched])],
  providers: [
    ScrobblersService,
    ScrobbleLedger,
    expiringRowsPurge(
      ScrobbleUnmatched,
      'scrobble_unmatched',
      'arrivedAtMs',
      (now) => now.getTime() - UNMATCHED_KEPT_MS,
    ),
  ],
  exports: [ScrobblersService, ScrobbleLedger],
})
export class ScrobblersModule implements OnModuleInit {
  constructor(
    private readonly ledger: ScrobbleLedger,
    @Optional() private readonly registry?: PurgeRegistry,
  ) {}

  onModuleInit(): void {
    this.registry?.register({
      kind: 'scrobble_recent',
      purgeBatch: (now, limit) => this.ledger.purgeRecent(now, limit),
    });
  }
}
