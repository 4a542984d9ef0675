import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, type DataSourceOptions, type QueryRunner } from 'typeorm';
import { isDeadlock } from './errors';
import { galeraNodesOf } from './galera-nodes';

/** How long an instance waits for another one's migrations before giving up its start. */
const LOCK_WAIT_SECONDS = 600;

/**
 * Applies pending migrations once however many instances start together (contract §16): on
 * MySQL/MariaDB under the named lock GET_LOCK, held by one connection for the whole run; SQLite
 * takes its own write lock. A connection of its own without the query timeout: a migration on a
 * large table may run much longer than DATABASE_TIMEOUT_MS.
 */
export async function runMigrationsUnderLock(options: DataSourceOptions): Promise<void> {
  // Several hosts: wait for a first round of probes, failing with each node's state.
  await galeraNodesOf(options)?.requireReadyNode();
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
    if (galeraNodesOf(options)) {
      await migrateUnderLease(migrator);
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

/** Galera: how long the migration lease lasts unless renewed, and how often it is renewed. */
const LEASE_SECONDS = 30;
const RENEW_EVERY_MS = 10_000;
const LEASE_POLL_MS = 500;

/** The lease's table: made at start-up outside the migrations, on several hosts only. */
export const MIGRATION_LEASE_TABLE = 'migration_lease';

const LEASE_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${MIGRATION_LEASE_TABLE} (
  name VARCHAR(64) NOT NULL PRIMARY KEY,
  holder VARCHAR(128) NOT NULL,
  expires_at DATETIME(3) NOT NULL
) ENGINE=InnoDB`;
/** Takes the lease when it is free or expired; leaves another holder's live lease as it is. */
const TAKE_LEASE_SQL = `INSERT INTO migration_lease (name, holder, expires_at)
  VALUES ('migrations', ?, NOW(3) + INTERVAL ${LEASE_SECONDS} SECOND)
  ON DUPLICATE KEY UPDATE
    holder = IF(expires_at < NOW(3) OR holder = VALUES(holder), VALUES(holder), holder),
    expires_at = IF(holder = VALUES(holder), VALUES(expires_at), expires_at)`;
const HOLDER_SQL = "SELECT holder FROM migration_lease WHERE name = 'migrations'";
const RENEW_SQL = `UPDATE migration_lease SET expires_at = NOW(3) + INTERVAL ${LEASE_SECONDS} SECOND
  WHERE name = 'migrations' AND holder = ?`;
const RELEASE_SQL = "DELETE FROM migration_lease WHERE name = 'migrations' AND holder = ?";

/**
 * Galera (contract §23): GET_LOCK is node-local, so instances on two nodes would both migrate.
 * The lock is a replicated row instead: taking it is a committed write, which certification makes
 * exclusive across nodes (the loser gets a deadlock error and reads the winner's row), renewed
 * while the migrations run; an instance that dies holding it blocks the others for at most
 * LEASE_SECONDS. Every read waits for the writes of the other nodes (wsrep_sync_wait).
 */
async function migrateUnderLease(migrator: DataSource): Promise<void> {
  const holder = `${hostname()}:${process.pid}:${randomUUID()}`.slice(0, 128);
  const runner = migrator.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SET SESSION wsrep_sync_wait = 1');
    await runner.query(LEASE_TABLE_SQL);
    const deadline = Date.now() + LOCK_WAIT_SECONDS * 1000;
    while (!(await takeLease(runner, holder))) {
      if (Date.now() > deadline) {
        throw new Error(
          `Another instance has been migrating the database for ${LOCK_WAIT_SECONDS} s; not starting`,
        );
      }
      await sleep(LEASE_POLL_MS);
    }
    const renewal = setInterval(() => {
      runner.query(RENEW_SQL, [holder]).catch(() => undefined);
    }, RENEW_EVERY_MS);
    try {
      await migrator.runMigrations({ transaction: 'all' });
    } finally {
      clearInterval(renewal);
      await runner.query(RELEASE_SQL, [holder]).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}

async function takeLease(runner: QueryRunner, holder: string): Promise<boolean> {
  try {
    await runner.query(TAKE_LEASE_SQL, [holder]);
  } catch (error) {
    if (isDeadlock(error)) return false;
    throw error;
  }
  const [row] = (await runner.query(HOLDER_SQL)) as { holder: string }[];
  return row?.holder === holder;
}
