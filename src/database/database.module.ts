import { DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseAvailability } from './database-availability.service';
import { boundMysqlPool } from './database-timeouts';
import { runMigrationsUnderLock } from './migration-lock';
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

/** Connects and applies pending migrations at start-up (contract §9, §16), or on demand. */
@Module({})
export class DatabaseModule {
  /**
   * The server retries a database that is still starting; the CLI fails at once. `onDemand`:
   * nothing touches the database until DatabaseConnection.open() is called.
   */
  static forRoot({
    retryAttempts,
    entities,
    onDemand = false,
  }: {
    retryAttempts: number;
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
            retryAttempts,
            retryDelay: 1000,
            manualInitialization: onDemand,
          }),
          dataSourceFactory: async (options) => {
            const dataSource = new DataSource(options as DataSourceOptions);
            if (!onDemand) await connect(dataSource);
            return dataSource;
          },
        }),
      ],
      providers: [DatabaseAvailability, DatabaseConnection],
      exports: [DatabaseAvailability, DatabaseConnection],
    };
  }
}
