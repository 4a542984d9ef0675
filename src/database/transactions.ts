import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { isDeadlock } from './errors';

const DEADLOCK_ATTEMPTS = 5;

/** The SQLite connection's queue: each transaction, and each statement outside one, in turn. */
const sqliteGates = new WeakMap<DataSource, Promise<unknown>>();
/** The SQLite transaction a piece of work runs in, while that transaction is open. */
const openTransaction = new AsyncLocalStorage<{ open: boolean }>();

/**
 * Runs `work` in one transaction and commits it, or rolls it back when `work` throws.
 *
 * SQLite: the process has a single connection, on which two open transactions would interleave
 * ("cannot start a transaction within a transaction"), so transactions run one at a time here,
 * and statements from outside a transaction wait for it (see `queueSqliteStatements`). Each
 * starts with BEGIN IMMEDIATE (the write lock, waited for), so that one which reads before it
 * writes cannot fail on a write of another process (the CLI) meanwhile.
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
    return inSqliteTurn(dataSource, () => {
      const transaction = { open: true };
      return openTransaction
        .run(transaction, () => dataSource.transaction(work))
        .finally(() => (transaction.open = false));
    });
  }
  return withDeadlockRetry(() => dataSource.transaction(work));
}

/**
 * SQLite: makes a statement issued outside `runTransaction` (a purge, a token insert) wait
 * until the open transaction ends, instead of running on the shared connection inside it, where
 * it would hold that transaction's locks and be rolled back with it; and opens the transactions
 * of `runTransaction` with BEGIN IMMEDIATE. TypeORM has no hook for this, so the connection's one
 * query runner is wrapped; call once, right after initialising.
 */
export function queueSqliteStatements(dataSource: DataSource): void {
  if (!isSqlite(dataSource)) return;
  const runner: QueryRunner = dataSource.driver.createQueryRunner('master');
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  runner.query = ((...args: unknown[]) =>
    openTransaction.getStore()?.open
      ? query(...(args[0] === BEGIN ? [BEGIN_IMMEDIATE, ...args.slice(1)] : args))
      : inSqliteTurn(dataSource, () => query(...args))) as QueryRunner['query'];
}

/**
 * How TypeORM opens a SQLite transaction, and what runs instead. A deferred transaction that
 * reads first holds a read snapshot; its first write, while another process (the CLI) writes,
 * fails at once with SQLITE_BUSY (SQLite calls no busy handler for a reader that would write, and
 * that process's commit makes the snapshot stale). BEGIN IMMEDIATE takes the write lock first,
 * waiting for it as long as the busy timeout. Within this process transactions run one at a time
 * anyway (`inSqliteTurn`), so it costs no concurrency, and no statement.
 */
const BEGIN = 'BEGIN TRANSACTION';
const BEGIN_IMMEDIATE = 'BEGIN IMMEDIATE TRANSACTION';

export function isSqlite(dataSource: DataSource): boolean {
  return dataSource.options.type === 'better-sqlite3';
}

function inSqliteTurn<T>(dataSource: DataSource, run: () => Promise<T>): Promise<T> {
  const previous = sqliteGates.get(dataSource) ?? Promise.resolve();
  const result = previous.then(run);
  sqliteGates.set(
    dataSource,
    result.catch(() => undefined),
  );
  return result;
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
