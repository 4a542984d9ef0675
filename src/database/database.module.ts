import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { buildTypeOrmOptions, EntityList } from './typeorm-options';

/** Connects and applies pending migrations at start-up (decisions §9). */
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
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            ...buildTypeOrmOptions(config.database, entities),
            retryAttempts,
            retryDelay: 1000,
          }),
        }),
      ],
    };
  }
}
