import { accessSync, constants, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import Redis from 'ioredis';
import { createConnection } from 'mysql2/promise';

/** The Redis of the rate-limit specs: `TEST_REDIS_URL`, by default a local one. */
export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
}

/**
 * A folder of its own under the run's temporary folder, which globalTeardown removes with
 * everything in it, whether or not the spec that made it finished.
 */
export function tempDir(prefix: string): string {
  const root = process.env.E2E_TMP_DIR;
  if (!root) throw new Error('E2E_TMP_DIR is unset: run the e2e specs through test/jest-e2e.json');
  return mkdtempSync(join(root, prefix));
}

export function createRunTempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ratings-e2e-'));
}

async function redisProblem(): Promise<string | null> {
  const url = testRedisUrl();
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause: Error | undefined;
  redis.on('error', (error: Error) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return (
      `Redis at ${url} does not answer (${(cause ?? (error as Error)).message}). The rate-limit specs need ` +
      'one: start it, or set TEST_REDIS_URL to redis://HOST:PORT.'
    );
  } finally {
    redis.disconnect();
  }
}

async function mariaDbProblem(): Promise<string | null> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) return null;
  let url: URL;
  try {
    url = new URL(server);
    if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') throw new Error('scheme');
  } catch {
    return `TEST_DATABASE_URL must be a MariaDB/MySQL server URL such as mysql://root@127.0.0.1:3306 (got "${server}").`;
  }
  url.pathname = '/';
  url.protocol = 'mysql:';
  try {
    const connection = await createConnection({ uri: url.toString(), connectTimeout: 3000 });
    await connection.end();
    return null;
  } catch (error) {
    url.password = url.password ? '***' : '';
    return (
      `MariaDB at ${url.toString()} (TEST_DATABASE_URL) does not answer (${(error as Error).message}). ` +
      'Start it, or unset TEST_DATABASE_URL to run the suite on SQLite.'
    );
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function mariaDbBinariesProblem(): string | null {
  const missing = ['mariadbd', 'mariadb-install-db'].filter((command) => !onPath(command));
  if (missing.length === 0) return null;
  return (
    `${missing.join(' and ')} not found on the PATH. The database-fault and migration-lock specs ` +
    'start MariaDB servers of their own (on SQLite runs too): install the mariadb-server package.'
  );
}

/** What the e2e suite needs and does not find, one message per missing service. */
export async function missingServices(): Promise<string[]> {
  const problems = await Promise.all([mariaDbProblem(), redisProblem()]);
  return [...problems, mariaDbBinariesProblem()].filter((p): p is string => p !== null);
}
