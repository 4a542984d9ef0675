import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type MigrationInterface } from 'typeorm';

/**
 * For a spec of a migration: a SQLite file in a folder of its own for each test (removed after
 * it), and `open(migrations)`, a data source on it with those migrations run.
 */
export function useScratchSqlite(prefix: string) {
  let folder: string;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), prefix));
  });

  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  return async (
    migrations: (new () => MigrationInterface)[],
    run: { transaction?: 'all' | 'none' | 'each' } = {},
  ): Promise<DataSource> => {
    const dataSource = new DataSource({
      type: 'better-sqlite3',
      database: join(folder, 'db.sqlite'),
      migrations,
    });
    await dataSource.initialize();
    await dataSource.runMigrations(run);
    return dataSource;
  };
}
