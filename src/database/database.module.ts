import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseAvailability } from './database-availability.service';
import { runMigrationsUnderLock } from './migration-lock';
import { queueSqliteStatements } from './transactions';
import { buildTypeOrmOptions, EntityList } from './typeorm-options';

/** Connects and applies pending migrations at start-up (contract §9, §16). */
@Module({})
export class DatabaseModule {
  /** The server retries a database that is still starting; the CLI fails at once. */
  static forRoot({
    retryAttempts,
    entities,
  }: {
    retryAttempts: number;
    entities: EntityList;
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
          }),
          dataSourceFactory: async (options) => {
            await runMigrationsUnderLock(options as DataSourceOptions);
            const dataSource = await new DataSource(options as DataSourceOptions).initialize();
            queueSqliteStatements(dataSource);
            return dataSource;
          },
        }),
      ],
      providers: [DatabaseAvailability],
      exports: [DatabaseAvailability],
    };
  }
}
