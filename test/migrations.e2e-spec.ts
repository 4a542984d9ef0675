import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { loadConfig } from '../src/config/app-config';
import { runMigrationsUnderLock } from '../src/database/migration-lock';
import { buildTypeOrmOptions, makeSqliteFolder, MIGRATIONS } from '../src/database/typeorm-options';
import { ENTITIES } from '../src/entities';
import { createRunDatabase, dropRunDatabase } from './utils/test-database';

const ROOT = join(__dirname, '..');

/** What TypeORM would change to make the database match the entities: its `up` statements. */
async function pendingSchemaChanges(options: DataSourceOptions): Promise<string[]> {
  const dataSource = await new DataSource(options).initialize();
  try {
    const log = await dataSource.driver.createSchemaBuilder().log();
    return log.upQueries.map((query) => query.query);
  } finally {
    await dataSource.destroy();
  }
}

/** `npm run <script> -- args` in the repository, with `env` on top of this process's. */
function npmRun(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', script, '--', ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          output: `${stdout}${stderr}`,
        }),
    );
  });
}

/**
 * Issue 30 item 4: the entities describe the schema the migrations make, on the suite's database
 * (SQLite, or MariaDB with TEST_DATABASE_URL), so that `npm run migration:generate` after the
 * migrations finds nothing to change, and a new migration holds only what a change asks for.
 */
describe('migrations and entities agree (npm run migration:generate)', () => {
  let databaseUrl: string;
  let options: DataSourceOptions;

  beforeAll(async () => {
    // A database of its own, fresh: the run's database has been migrated by the other specs.
    databaseUrl = await createRunDatabase();
    options = buildTypeOrmOptions(loadConfig({ DATABASE_URL: databaseUrl }).database, ENTITIES);
    makeSqliteFolder(options);
    await runMigrationsUnderLock(options);
  });

  afterAll(async () => {
    if (databaseUrl) await dropRunDatabase(databaseUrl);
  });

  it('leaves TypeORM nothing to change after the migrations (the schema builder, in process)', async () => {
    expect(await pendingSchemaChanges(options)).toEqual([]);
  });

  it('lets `npm run migration:generate -- --check` find no change in the schema', async () => {
    const { code, output } = await npmRun(
      'migration:generate',
      ['--check', 'src/database/migrations/SchemaCheck'],
      { DATABASE_URL: databaseUrl },
    );
    expect({ code, output: output.trim() }).toEqual({
      code: 0,
      output: expect.stringContaining('No changes in database schema were found') as string,
    });
    expect(output).not.toMatch(/Unexpected changes/);
  });

  it('reverts the last migration and applies it again to the same schema', async () => {
    const dataSource = await new DataSource(options).initialize();
    try {
      await dataSource.undoLastMigration({ transaction: 'all' });
      const [last] = await dataSource.query<{ name: string }[]>(
        'SELECT name FROM migrations ORDER BY id DESC LIMIT 1',
      );
      expect(last.name).toBe(MIGRATIONS[MIGRATIONS.length - 2].name);
      await dataSource.runMigrations({ transaction: 'all' });
    } finally {
      await dataSource.destroy();
    }
    expect(await pendingSchemaChanges(options)).toEqual([]);
  });
});
