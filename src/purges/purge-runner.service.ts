import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../metrics/metrics.service';
import { PurgeLease } from './purge-lease.entity';
import { PURGE_BATCH, PurgeRegistry } from './purge-registry';

const LEASE = 'purges';
/** A crashed holder's lease runs out after this long; a run renews it between batches. */
const LEASE_SECONDS = 300;

/**
 * Runs every registered purge at start-up and every PURGE_INTERVAL_SECONDS, in batches of at
 * most 1000 rows, on one instance at a time: the instance that takes the lease row in the
 * database runs them, the others skip that round.
 */
@Injectable()
export class PurgeRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PurgeRunner.name);
  private readonly holder = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registry: PurgeRegistry,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => {
      if (this.running) return;
      this.running = this.runOnce()
        .catch((error: unknown) =>
          this.logger.error(`Purging failed: ${(error as Error).message ?? String(error)}`),
        )
        .finally(() => (this.running = null));
    };
    run();
    this.timer = setInterval(run, this.config.purgeIntervalSeconds * 1000).unref();
  }

  /** Before the database connection closes (in the shutdown hooks): a running round ends first. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /**
   * One round: every purge until nothing is due. Returns the rows purged per kind, or null when
   * another instance holds the lease.
   */
  async runOnce(now = new Date()): Promise<Record<string, number> | null> {
    if (!(await this.takeLease())) return null;
    const purged: Record<string, number> = {};
    try {
      for (const task of this.registry.all()) {
        purged[task.kind] = 0;
        for (;;) {
          const count = await task.purgeBatch(now, PURGE_BATCH);
          purged[task.kind] += count;
          this.metrics.countPurged(task.kind, count);
          if (count < PURGE_BATCH) break;
          if (!(await this.takeLease())) return purged;
        }
      }
    } finally {
      await this.releaseLease();
    }
    return purged;
  }

  /** Takes the lease when it is free, expired or already ours; one statement, so no race. */
  private async takeLease(): Promise<boolean> {
    const now = new Date();
    const result = await this.dataSource
      .createQueryBuilder()
      .update(PurgeLease)
      .set({ holder: this.holder, expiresAt: new Date(now.getTime() + LEASE_SECONDS * 1000) })
      .where('name = :name AND (expires_at < :now OR holder = :holder)', {
        name: LEASE,
        now,
        holder: this.holder,
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  private async releaseLease(): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .update(PurgeLease)
      .set({ holder: null, expiresAt: new Date(0) })
      .where('name = :name AND holder = :holder', { name: LEASE, holder: this.holder })
      .execute();
  }
}
