import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { boundMysqlPool } from './database-timeouts';
import { galeraNodesOf } from './galera-nodes';
import { closeReader } from './select-arrays';

const PROBE_EVERY_MS = 1000;

/**
 * Bounds every wait on the database (DATABASE_TIMEOUT_MS) and keeps the log of an outage to one
 * line when it starts and one when it ends, however many requests meet it in between: each of
 * them is answered 503 without a stack trace.
 */
@Injectable()
export class DatabaseAvailability implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private outageSince: number | null = null;
  private probe: NodeJS.Timeout | null = null;
  private probing = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    boundMysqlPool(this.dataSource, this.config.databaseTimeoutMs);
  }

  onApplicationShutdown(): void {
    this.stopProbe();
    closeReader(this.dataSource);
    galeraNodesOf(this.dataSource.options)?.stop();
  }

  get unavailable(): boolean {
    return this.outageSince !== null;
  }

  /** A request met a database that does not answer. */
  reportUnavailable(error: unknown): void {
    if (this.outageSince !== null) return;
    this.outageSince = Date.now();
    const code = errorCode(error) ?? 'no answer';
    this.logger.error(
      `The database does not answer (${code}): requests that need it are answered 503 until it does`,
    );
    this.probe = setInterval(() => void this.checkRecovered(), PROBE_EVERY_MS).unref();
  }

  private async checkRecovered(): Promise<void> {
    if (this.outageSince === null || this.probing || !this.dataSource.isInitialized) return;
    this.probing = true;
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      return;
    } finally {
      this.probing = false;
    }
    if (this.outageSince === null) return;
    const seconds = Math.round((Date.now() - this.outageSince) / 1000);
    this.outageSince = null;
    this.stopProbe();
    this.logger.log(`The database answers again, after about ${seconds} s`);
  }

  private stopProbe(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }
}

function errorCode(error: unknown, depth = 0): string | undefined {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown }; cause?: unknown };
  if (candidate === null || typeof candidate !== 'object' || depth > 3) return undefined;
  const code = candidate.driverError?.code ?? candidate.code;
  return typeof code === 'string' ? code : errorCode(candidate.cause, depth + 1);
}
