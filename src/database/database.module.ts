import { setTimeout as sleep } from 'node:timers/promises';
import { DynamicModule, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseAvailability } from './database-availability.service';
import { describeDatabase } from './describe-database';
import { boundMysqlPool } from './database-timeouts';
import { runMigrationsUnderLock } from './migration-lock';
import { BACKGROUND_CHECKPOINTS, SqliteCheckpoints } from './sqlite-checkpoints';
import { queueSqliteStatements } from './transactions';
import { buildTypeOrmOptions, EntityList, makeSqliteFolder } from './typeorm-options';

/**
 * Connects the data source (making the SQLite file's folder, applying pending migrations), once.
 * The server connects at start-up; the CLI only when a command that needs the database runs, so
 * that `--help`, `--version` and usage errors leave no database file behind.
 */
@Injectable()
export class DatabaseConnection {
  private opened: Promise<void> | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  open(): Promise<void> {
    this.opened ??= connect(this.dataSource).then(() =>
      boundMysqlPool(this.dataSource, this.config.databaseTimeoutMs),
    );
    return this.opened;
  }
}

async function connect(dataSource: DataSource): Promise<void> {
  if (dataSource.isInitialized) return;
  makeSqliteFolder(dataSource.options);
  await runMigrationsUnderLock(dataSource.options);
  await dataSource.initialize();
  queueSqliteStatements(dataSource);
}

const RETRY_DELAY_MS = 1000;

/**
 * The server's start-up connection: a database still starting gets `attempts` tries a second
 * apart, each failure one log line. (TypeOrmModule's own retries would log a stack per attempt.)
 */
async function connectRetrying(dataSource: DataSource, attempts: number): Promise<void> {
  const logger = new Logger('Database');
  const database = describeDatabase(dataSource.options);
  for (let attempt = 1; ; attempt++) {
    try {
      await connect(dataSource);
      return;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (attempt >= attempts) {
        throw new Error(
          `Could not open the database (${database}) in ${attempts} attempts: ${reason}`,
        );
      }
      logger.warn(
        `Could not open the database (${database}): ${reason}; retrying in ${RETRY_DELAY_MS / 1000} s (attempt ${attempt} of ${attempts})`,
      );
      await sleep(RETRY_DELAY_MS);
    }
  }
}

/** Connects and applies pending migrations at start-up (contract §9, §16), or on demand. */
@Module({})
export class DatabaseModule {
  /**
   * The server tries a database that is still starting `attempts` times; the CLI (1) fails at
   * once. `onDemand`: nothing touches the database until DatabaseConnection.open() is called.
   */
  static forRoot({
    attempts,
    entities,
    onDemand = false,
  }: {
    attempts: number;
    entities: EntityList;
    onDemand?: boolean;
  }): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            ...buildTypeOrmOptions(config.database, entities, config.databaseTimeoutMs),
            toRetry: () => false,
            manualInitialization: onDemand,
          }),
          dataSourceFactory: async (options) => {
            const dataSource = new DataSource(options as DataSourceOptions);
            if (!onDemand) await connectRetrying(dataSource, attempts);
            return dataSource;
          },
        }),
      ],
      providers: [
        DatabaseAvailability,
        DatabaseConnection,
        SqliteCheckpoints,
        { provide: BACKGROUND_CHECKPOINTS, useValue: !onDemand },
      ],
      exports: [DatabaseAvailability, DatabaseConnection],
    };
  }
}
