import { Module } from '@nestjs/common';
import { ScrobbleLedger } from './scrobble-ledger';
import { ScrobblersService } from './scrobblers.service';

/**
 * The scrobblers and what they leave (mappings, unmatched requests): what the revocations, the
 * export and the erasure of an account ask for, with no dependency on the receiver's.
 */
@Module({
  providers: [ScrobblersService, ScrobbleLedger],
  exports: [ScrobblersService, ScrobbleLedger],
})
export class ScrobblersModule {}
