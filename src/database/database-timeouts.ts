import type { DataSource } from 'typeorm';
import { GALERA_SESSION_SQL, galeraNodesOf, NO_READY_NODE_CODE } from './galera-nodes';

/** The code of the error a wait for a pooled connection ends with after DATABASE_TIMEOUT_MS. */
export const ACQUIRE_TIMEOUT_CODE = 'DATABASE_ACQUIRE_TIMEOUT';

/** Errors that mean "the database does not answer", not "the request or the code is wrong". */
const UNAVAILABLE_CODES = new Set([
  ACQUIRE_TIMEOUT_CODE,
  'PROTOCOL_SEQUENCE_TIMEOUT', // mysql2: a query ran past its timeout
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'ETIMEDOUT', // connecting ran past connectTimeout
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY', // better-sqlite3: the busy timeout (DATABASE_TIMEOUT_MS) ran out
  NO_READY_NODE_CODE, // Galera: no node of the list is ready (contract §23)
  'ER_UNKNOWN_COM_ERROR', // Galera 1047: the node is not ready (rejoining, or without quorum)
  'ER_ERROR_DURING_COMMIT', // Galera 1180: the node lost the cluster during the commit
  'DATABASE_WRITE_CONFLICT', // Galera: certification conflicts for the whole timeout (transactions.ts)
]);

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  const candidate = error as
    | {
        code?: unknown;
        driverError?: { code?: unknown; message?: unknown };
        message?: unknown;
        cause?: unknown;
      }
    | null
    | undefined;
  if (
    candidate?.cause !== undefined &&
    depth < 3 &&
    isDatabaseUnavailable(candidate.cause, depth + 1)
  ) {
    return true;
  }
  const code = candidate?.driverError?.code ?? candidate?.code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  const message = candidate?.driverError?.message ?? candidate?.message;
  // mysql2 refuses commands on a connection that a fatal error (or our destroy()) closed.
  return (
    typeof message === 'string' &&
    message.includes("Can't add new command when connection is in closed state")
  );
}

interface PoolConnection {
  stream?: unknown;
  query: (...args: unknown[]) => unknown;
  release(): void;
  destroy(): void;
}

interface MysqlPool {
  getConnection(callback: (error: Error | null, connection?: PoolConnection) => void): void;
}

const timeouts = new WeakMap<DataSource, number>();

/** DATABASE_TIMEOUT_MS of a MySQL/MariaDB data source (the bound of a write's retries). */
export function databaseTimeoutOf(dataSource: DataSource): number | undefined {
  return timeouts.get(dataSource);
}

const guarded = new WeakSet<object>();

/**
 * mysql2 has a per-query `timeout` (TypeORM's enableQueryTimeout) but no bound on the wait for a
 * pooled connection, and a query that timed out keeps its connection busy until the server
 * answers, so the next query on it would queue behind it without a timer. Hand-written because
 * neither the driver nor TypeORM offers either: a wait for a connection gives up after
 * `timeoutMs` (a connection that comes later goes back to the pool), and a connection whose query
 * timed out is destroyed, which frees its slot in the pool.
 */
export function boundMysqlPool(dataSource: DataSource, timeoutMs: number): void {
  if (dataSource.options.type !== 'mysql') return;
  const pool = (dataSource.driver as unknown as { pool?: MysqlPool }).pool;
  if (!pool || guarded.has(pool)) return;
  guarded.add(pool);
  timeouts.set(dataSource, timeoutMs);
  const galera = galeraNodesOf(dataSource.options);
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = (callback) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      const error = new Error(`No database connection within ${timeoutMs} ms`);
      (error as Error & { code: string }).code = ACQUIRE_TIMEOUT_CODE;
      callback(error);
    }, timeoutMs);
    const taken = (error: Error | null, connection?: PoolConnection) => {
      if (settled) {
        connection?.release();
        return;
      }
      if (connection && galera && !galera.isCurrent(connection)) {
        // A connection to a node that is no longer the current one (contract §23).
        connection.destroy();
        getConnection(taken);
        return;
      }
      settled = true;
      clearTimeout(timer);
      if (connection && galera && !guarded.has(connection)) {
        connection.query(GALERA_SESSION_SQL, () => {});
      }
      if (connection) destroyOnQueryTimeout(connection);
      callback(error, connection);
    };
    getConnection(taken);
  };
}

function destroyOnQueryTimeout(connection: PoolConnection): void {
  if (guarded.has(connection)) return;
  guarded.add(connection);
  const query = connection.query.bind(connection);
  connection.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: { code?: string } | null, ...rest: unknown[]) => {
        if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') connection.destroy();
        (callback as (...values: unknown[]) => void)(error, ...rest);
      };
    }
    return query(...args);
  };
}
