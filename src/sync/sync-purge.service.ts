import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SyncDeletionsRepository } from './sync-deletions.repository';

const PURGE_EVERY_MS = 3_600_000;
const BATCH = 1000;
/**
 * Kept a little longer than the retention: a deletion's time is taken inside its transaction,
 * which may commit a moment after a cursor that must still report it was issued.
 */
const MARGIN_SECONDS = 60;

/** Removes deletions older than SYNC_RETENTION_DAYS: at start-up, then every hour. */
@Injectable()
export class SyncPurgeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SyncPurgeService.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deletions: SyncDeletionsRepository,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => {
      this.purge().catch((error: unknown) =>
        this.logger.error(`Purging sync deletions failed: ${(error as Error).message}`),
      );
    };
    run();
    this.timer = setInterval(run, PURGE_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Purges in batches of 1000; returns how many deletions went. */
  async purge(now = Date.now()): Promise<number> {
    const before = new Date(now - (this.config.sync.retentionSeconds + MARGIN_SECONDS) * 1000);
    let purged = 0;
    for (;;) {
      const count = await this.deletions.purgeBefore(before, BATCH);
      purged += count;
      if (count < BATCH) return purged;
    }
  }
}
