import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { buildTypeOrmOptions, makeSqliteFolder } from './src/database/typeorm-options';
import { ENTITIES } from './src/entities';

const options = buildTypeOrmOptions(loadConfig().database, ENTITIES);
makeSqliteFolder(options);

/** For the TypeORM CLI (`npm run migration:*`) only; the app builds its options the same way. */
export default new DataSource({
  ...options,
  migrationsRun: false,
  migrations: ['src/database/migrations/*.ts'],
});
