import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { buildTypeOrmOptions } from './src/database/typeorm-options';
import { ENTITIES } from './src/entities';

/** For the TypeORM CLI (`npm run migration:*`) only; the app builds its options the same way. */
export default new DataSource({
  ...buildTypeOrmOptions(loadConfig().database, ENTITIES),
  migrationsRun: false,
  migrations: ['src/database/migrations/*.ts'],
});
