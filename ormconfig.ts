import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { buildTypeOrmOptions, makeSqliteFolder } from './src/database/typeorm-options';
import { ENTITIES } from './src/entities';

const options = buildTypeOrmOptions(loadConfig().database, ENTITIES);
makeSqliteFolder(options);

/**
 * For the TypeORM CLI (`npm run migration:*`) only, with the app's own options: the same entities
 * and the one list of migrations (MIGRATIONS, src/database/typeorm-options.ts).
 */
export default new DataSource(options);
