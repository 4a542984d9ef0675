import { setTimeout as sleep } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';
import { QueryFailedError, QueryResult } from 'typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { DEFAULT_DATABASE_TIMEOUT_MS } from '../config/app-config';
import { databaseTimeoutOf } from './database-timeouts';
import { isDeadlock } from './errors';
import { galeraNodesOf } from './galera-nodes';

const DEADLOCK_ATTEMPTS = 5;
/** Galera: the first retry waits up to this long, each next one up to twice as long, capped. */
const CONFLICT_BACKOFF_MS = 10;
const CONFLICT_BACKOFF_CAP_MS = 250;
/** The error of a write that lost certification conflicts for the whole database timeout. */
export const WRITE_CONFLICT_CODE = 'DATABASE_WRITE_CONFLICT';

/** The SQLite connection's queue: each transaction, and each statement outside one, in turn. */
const sqliteGates = new WeakMap<DataSource, Promise<unknown>>();
/** SQLite: the query runner transactions run on, one of their own. */
const transactionRunners = new WeakMap<DataSource, QueryRunner>();

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
  { grouped = false }: { grouped?: boolean } = {},
): Promise<T> {
  if (isSqlite(dataSource)) return inSqliteGroup(dataSource, work, grouped);
  if (galeraNodesOf(dataSource.options)) {
    return withConflictRetry(
      () => dataSource.transaction(work),
      databaseTimeoutOf(dataSource) ?? DEFAULT_DATABASE_TIMEOUT_MS,
    );
  }
  return withDeadlockRetry(() => dataSource.transaction(work));
}

/** SQLite: the most transactions one COMMIT ends (see inSqliteGroup). */
export const SQLITE_GROUP_LIMIT = 16;

interface QueuedWork {
  work: (manager: EntityManager) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** SQLite: the transactions waiting to join the group that is open or about to open. */
const sqliteGroups = new WeakMap<DataSource, QueuedWork[]>();

/**
 * SQLite, group commit for the transactions that ask for it (`grouped`: the entry writes, the
 * hot path; the others run alone, as their own group of one, and keep the timing they were tuned
 * for, such as webhook deliveries shared between instances): transactions that arrive in the same
 * turn of the event loop, or while one runs, join it, each in a savepoint of its own, and one
 * COMMIT ends them all (at most SQLITE_GROUP_LIMIT). Each caller's promise settles only after
 * that COMMIT, so an answered write is a committed one, as before; a work that throws is rolled
 * back to its savepoint alone and rejects at once. A COMMIT writes every page the group changed to
 * the WAL once: writes of one list share the users row, the revision counter and the index pages
 * they append to, which a COMMIT per write wrote again each time (BENCHMARKS.md). Alone, a
 * grouped transaction waits for the end of its turn and nothing else.
 */
function inSqliteGroup<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  grouped: boolean,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const queued: QueuedWork = {
      work,
      resolve: resolve as (value: unknown) => void,
      reject,
    };
    if (!grouped) {
      void inSqliteTurn(dataSource, () => runGroup(dataSource, [queued], false));
      return;
    }
    const open = sqliteGroups.get(dataSource);
    if (open) {
      open.push(queued);
      return;
    }
    const group = [queued];
    sqliteGroups.set(dataSource, group);
    void inSqliteTurn(dataSource, () => runGroup(dataSource, group));
  });
}

/**
 * One transaction for the works of `queue`. A group others may join runs each work in a savepoint
 * of its own; a transaction alone (`joinable` false) needs none: its failure rolls back all of it.
 */
async function runGroup(
  dataSource: DataSource,
  queue: QueuedWork[],
  joinable = true,
): Promise<void> {
  const runner = transactionRunner(dataSource);
  const connection = (dataSource.driver as unknown as { databaseConnection: Database })
    .databaseConnection;
  const committed: { queued: QueuedWork; value: unknown }[] = [];
  // The work running now: rejected with the group when the group fails.
  let current: QueuedWork | undefined;
  try {
    // A request's way to its write is synchronous on SQLite (promises only), so the writes of
    // the requests read in one turn of the event loop arrive in that turn: the group waits for
    // the turn's end to take them all, or every group would be a group of one.
    if (joinable) await nextTurn();
    current = queue.shift();
    await runner.startTransaction();
    for (let taken = 0; current && taken < SQLITE_GROUP_LIMIT; taken++) {
      const queued = current;
      try {
        if (joinable) await runner.startTransaction();
        const value = await queued.work(dataSource.createEntityManager(runner));
        if (joinable) await runner.commitTransaction();
        committed.push({ queued, value });
      } catch (error) {
        // Alone, or SQLite ended the whole transaction itself (SQLITE_FULL, an I/O error): the
        // works before this one are gone too, and the group fails.
        if (!joinable || !connection.inTransaction) throw error;
        await runner.rollbackTransaction();
        queued.reject(error);
      }
      current = taken + 1 < SQLITE_GROUP_LIMIT ? queue.shift() : undefined;
    }
    await runner.commitTransaction();
  } catch (error) {
    abortGroup(runner, connection);
    current?.reject(error);
    for (const done of committed.splice(0)) done.queued.reject(error);
  } finally {
    if (sqliteGroups.get(dataSource) === queue) sqliteGroups.delete(dataSource);
    // Beyond the limit, or arrived while the COMMIT ran: the next group, behind this one.
    if (queue.length > 0) {
      const rest = queue.splice(0);
      // Open for joining while it waits for its turn, as a new group would be.
      if (!sqliteGroups.has(dataSource)) sqliteGroups.set(dataSource, rest);
      void inSqliteTurn(dataSource, () => runGroup(dataSource, rest));
    }
  }
  for (const done of committed) done.queued.resolve(done.value);
}

/**
 * After a failed BEGIN, savepoint, work, ROLLBACK TO or COMMIT: nothing of the group stays open
 * (a statement from outside a transaction would otherwise run inside it, never committed), and
 * the runner's own bookkeeping starts again from no transaction, so the next BEGIN is a BEGIN.
 */
function abortGroup(runner: QueryRunner, connection: Database): void {
  try {
    if (connection.inTransaction) connection.exec('ROLLBACK');
  } catch {
    // The connection is unusable: the next statement reports it.
  }
  Object.assign(runner, { isTransactionActive: false, transactionDepth: 0 });
}

/**
 * SQLite: makes a statement issued outside `runTransaction` (a purge, a token insert) wait
 * until the open transaction ends, instead of running on the shared connection inside it, where
 * it would hold that transaction's locks and be rolled back with it. TypeORM has no hook for
 * this, so the query runner that TypeORM hands out for work outside a transaction (the driver
 * has one) is wrapped; transactions run on a runner of their own (`transactionManager`), which
 * is not. Call once, right after initialising.
 */
export function queueSqliteStatements(dataSource: DataSource): void {
  if (!isSqlite(dataSource)) return;
  const runner: QueryRunner = dataSource.driver.createQueryRunner('master');
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  runner.query = ((...args: unknown[]) =>
    inSqliteTurn(dataSource, () => query(...args))) as QueryRunner['query'];
}

/**
 * SQLite: a second query runner over the same connection (the better-sqlite3 driver hands out one
 * runner only, so it is made with that runner's class), whose transactions begin IMMEDIATE; each
 * transaction gets a new entity manager on it (what a transaction read may be kept by its
 * manager). Telling the statements of the open transaction from those of other work by the
 * runner they come through, rather than by an AsyncLocalStorage, keeps Node 20 from running a
 * promise hook for every promise of every request once the first transaction ran (measured:
 * 4.5 % of a GET one's CPU).
 */
function transactionRunner(dataSource: DataSource): QueryRunner {
  let runner = transactionRunners.get(dataSource);
  if (!runner) {
    const shared = dataSource.driver.createQueryRunner('master');
    const Runner = shared.constructor as new (driver: DataSource['driver']) => QueryRunner;
    const created = new Runner(dataSource.driver);
    created.query = directStatements(dataSource) as QueryRunner['query'];
    transactionRunners.set(dataSource, (runner = created));
  }
  return runner;
}

/**
 * The transaction runner's `query`: better-sqlite3's statement, prepared once (at most as many as
 * TypeORM's own cache keeps, the oldest dropped first), run at once, with the result TypeORM's
 * runner gives. TypeORM's runner does the same around a logger call, two query events (this app
 * subscribes to none), two clocks and an awaited cache lookup: about half a µs of every statement
 * of a write (1.2 against 0.8 µs for one UPDATE in a loop). A statement that fails rejects with
 * TypeORM's QueryFailedError, one that cannot be prepared with better-sqlite3's error, as there.
 */
function directStatements(dataSource: DataSource) {
  const connection = (dataSource.driver as unknown as { databaseConnection: Database })
    .databaseConnection;
  const limit =
    (dataSource.options as { statementCacheSize?: number }).statementCacheSize ??
    STATEMENT_CACHE_SIZE;
  const statements = new Map<string, Statement>();
  return async (
    sql: string,
    parameters: unknown[] = [],
    useStructuredResult = false,
  ): Promise<unknown> => {
    const text = sql === BEGIN ? BEGIN_IMMEDIATE : sql;
    let statement = statements.get(text);
    if (!statement) {
      statement = connection.prepare(text);
      statements.set(text, statement);
      if (statements.size > limit) statements.delete(statements.keys().next().value as string);
    }
    try {
      if (statement.reader) {
        const rows: unknown[] = statement.all(...parameters);
        return useStructuredResult
          ? Object.assign(new QueryResult(), { raw: rows, records: rows })
          : rows;
      }
      const info = statement.run(...parameters);
      return useStructuredResult
        ? Object.assign(new QueryResult(), { raw: info.lastInsertRowid, affected: info.changes })
        : info.lastInsertRowid;
    } catch (error) {
      throw new QueryFailedError(text, parameters, error as Error);
    }
  };
}

/** TypeORM's default size of the better-sqlite3 driver's statement cache. */
const STATEMENT_CACHE_SIZE = 100;

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

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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

/**
 * Galera (contract §23): a transaction that loses certification to a conflicting commit of
 * another node fails with a deadlock error, after being rolled back; two nodes writing one row
 * conflict often, so it is run again, after a jittered wait, until the database timeout is spent.
 * Only that error is retried: a COMMIT whose connection dropped has an unknown outcome.
 */
async function withConflictRetry<T>(run: () => Promise<T>, budgetMs: number): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isDeadlock(error)) throw error;
      const wait =
        Math.random() * Math.min(CONFLICT_BACKOFF_CAP_MS, CONFLICT_BACKOFF_MS * 2 ** attempt);
      if (Date.now() + wait >= deadline) {
        throw Object.assign(
          new Error(`The write lost certification conflicts for ${budgetMs} ms`, { cause: error }),
          { code: WRITE_CONFLICT_CODE },
        );
      }
      await sleep(wait);
    }
  }
}
