import { DataSource, type DataSourceOptions } from 'typeorm';

/** How long an instance waits for another one's migrations before giving up its start. */
const LOCK_WAIT_SECONDS = 600;

/**
 * Applies pending migrations once however many instances start together (contract §16): on
 * MySQL/MariaDB under the named lock GET_LOCK, held by one connection for the whole run; SQLite
 * takes its own write lock. A connection of its own without the query timeout: a migration on a
 * large table may run much longer than DATABASE_TIMEOUT_MS.
 */
export async function runMigrationsUnderLock(options: DataSourceOptions): Promise<void> {
  const migrator = await new DataSource(
    options.type === 'mysql'
      ? {
          ...options,
          enableQueryTimeout: false,
          extra: { ...(options.extra as object), connectionLimit: 2 },
        }
      : options,
  ).initialize();
  try {
    if (options.type !== 'mysql') {
      await migrator.runMigrations({ transaction: 'all' });
      return;
    }
    const runner = migrator.createQueryRunner();
    await runner.connect();
    try {
      const lockName = "LEFT(CONCAT('ratings-migrations:', DATABASE()), 64)";
      const [row] = (await runner.query(`SELECT GET_LOCK(${lockName}, ?) AS got`, [
        LOCK_WAIT_SECONDS,
      ])) as { got: number | string | null }[];
      if (Number(row?.got) !== 1) {
        throw new Error(
          `Another instance has been migrating the database for ${LOCK_WAIT_SECONDS} s; not starting`,
        );
      }
      try {
        await migrator.runMigrations({ transaction: 'all' });
      } finally {
        await runner.query(`SELECT RELEASE_LOCK(${lockName})`);
      }
    } finally {
      await runner.release();
    }
  } finally {
    await migrator.destroy();
  }
}
