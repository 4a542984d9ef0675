import type { DataSource, EntityManager } from 'typeorm';

const sqliteGates = new WeakMap<DataSource, Promise<unknown>>();
const DEADLOCK_ATTEMPTS = 5;

/**
 * Runs `work` in one transaction and commits it, or rolls it back when `work` throws.
 *
 * SQLite: the process has a single connection, on which two open transactions would interleave
 * ("cannot start a transaction within a transaction"), so transactions run one at a time here.
 * MySQL/MariaDB: a transaction that InnoDB picks as a deadlock victim is run again from the start
 * (its work was rolled back), so a race between writers never surfaces as an error.
 *
 * `work` must use only the manager it is given, and must not open another transaction.
 */
export function runTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  if (isSqlite(dataSource)) {
    const previous = sqliteGates.get(dataSource) ?? Promise.resolve();
    const result = previous.then(() => dataSource.transaction(work));
    sqliteGates.set(
      dataSource,
      result.catch(() => undefined),
    );
    return result;
  }
  return withDeadlockRetry(() => dataSource.transaction(work));
}

export function isSqlite(dataSource: DataSource): boolean {
  return dataSource.options.type === 'better-sqlite3';
}

async function withDeadlockRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(error)) throw error;
    }
  }
}

function isDeadlock(error: unknown): boolean {
  const code =
    (error as { driverError?: { code?: unknown } } | null)?.driverError?.code ??
    (error as { code?: unknown } | null)?.code;
  return code === 'ER_LOCK_DEADLOCK';
}
