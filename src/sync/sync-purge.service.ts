import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { PURGE_BATCH, PurgeRegistry } from '../purges/purge-registry';
import { SyncDeletionsRepository } from './sync-deletions.repository';

/**
 * Kept a little longer than the retention: a deletion's time is taken inside its transaction,
 * which may commit a moment after a cursor that must still report it was issued.
 */
const MARGIN_SECONDS = 60;

/** Deletions older than SYNC_RETENTION_DAYS go, with the other purges (contract §12, §16). */
@Injectable()
export class SyncPurgeService implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deletions: SyncDeletionsRepository,
    private readonly registry: PurgeRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      kind: 'sync_deletions',
      purgeBatch: (now, limit) => this.deletions.purgeBefore(this.dueBefore(now), limit),
    });
  }

  /** Purges every due deletion at once, in batches; returns how many went. */
  async purge(now = Date.now()): Promise<number> {
    let purged = 0;
    for (;;) {
      const count = await this.deletions.purgeBefore(this.dueBefore(new Date(now)), PURGE_BATCH);
      purged += count;
      if (count < PURGE_BATCH) return purged;
    }
  }

  private dueBefore(now: Date): Date {
    return new Date(now.getTime() - (this.config.sync.retentionSeconds + MARGIN_SECONDS) * 1000);
  }
}
