import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import { freePort, runCli, startServer } from '../utils/cli';
import { eventually, sleep } from '../utils/wait';
import { CLUSTER_SCRIPT } from './cluster-setup';

/** A parsed JSON body (JSON.parse's own type). */
export type Json = ReturnType<typeof JSON.parse>;

/** What scripts/cluster/cluster.mjs sets up (its ports and names). */
export const CLUSTER_DIR = process.env.CLUSTER_DIR || '/tmp/ratings-cluster';
export const SQL_PORTS = [4306, 4307, 4308];
export const REDIS_PORTS = { primary: 6380, replica: 6381 };
export const SENTINEL_PORTS = [26380, 26381, 26382];
export const CREDENTIALS = 'ratings:ratings';
export const DATABASE = 'ratings';
export const REDIS_URL = `redis+sentinel://${SENTINEL_PORTS.map((p) => `127.0.0.1:${p}`).join(',')}/ratings`;
export const UA = 'ClusterSuite/1.0 (ops@example.com)';

/** DATABASE_URL naming the nodes in this order (1-based). */
export function databaseUrl(order: number[]): string {
  const hosts = order.map((n) => `127.0.0.1:${SQL_PORTS[n - 1]}`).join(',');
  return `mysql://${CREDENTIALS}@${hosts}/${DATABASE}`;
}

export function pidOf(name: string): number {
  return Number(readFileSync(join(CLUSTER_DIR, `${name}.pid`), 'utf8'));
}

export async function clusterCommand(...args: string[]): Promise<void> {
  await promisify(execFile)(process.execPath, [CLUSTER_SCRIPT, ...args], { timeout: 150_000 });
}

/** wsrep state of node n, or null when it does not answer. */
export async function nodeStatus(
  n: number,
): Promise<{ ready: boolean; size: number; state: string } | null> {
  try {
    const connection = await createConnection({
      host: '127.0.0.1',
      port: SQL_PORTS[n - 1],
      user: 'ratings',
      password: 'ratings',
      connectTimeout: 2000,
    });
    try {
      const [rows] = await connection.query<RowDataPacket[]>({
        sql: "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state', 'wsrep_cluster_size', 'wsrep_local_state_comment')",
        timeout: 2000,
      });
      const status = Object.fromEntries(rows.map((row) => [row.Variable_name, row.Value]));
      return {
        ready: status.wsrep_ready === 'ON' && status.wsrep_local_state === '4',
        size: Number(status.wsrep_cluster_size),
        state: String(status.wsrep_local_state_comment),
      };
    } finally {
      connection.destroy();
    }
  } catch {
    return null;
  }
}

/** Runs SQL on node n (as the cluster's user, on the service's database). */
export async function sqlOn<T>(n: number, sql: string, values: unknown[] = []): Promise<T[]> {
  const connection = await createConnection({
    host: '127.0.0.1',
    port: SQL_PORTS[n - 1],
    user: 'ratings',
    password: 'ratings',
    database: DATABASE,
  });
  try {
    await connection.query('SET SESSION wsrep_sync_wait = 1');
    const [rows] = await connection.query(sql, values);
    return rows as T[];
  } finally {
    await connection.end();
  }
}

export interface Instance {
  name: string;
  port: number;
  env: Record<string, string>;
  child: ReturnType<typeof startServer>['child'];
  output: () => string;
}

export function instanceEnv(order: number[], port: number): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl(order),
    REDIS_URL,
    REDIS_KEY_PREFIX: 'cluster-suite:',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    RATE_LIMIT_USER_LIMIT: '1000000',
    RATE_LIMIT_USER_WINDOW_SECONDS: '3600',
    RATE_LIMIT_IP_LIMIT: '1000000',
    RATE_LIMIT_IP_WINDOW_SECONDS: '3600',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // A claim of a killed instance runs out after the attempt's timeout + 10 s.
    WEBHOOK_TIMEOUT_SECONDS: '2',
  };
}

/** Starts `node dist/main.js` on the nodes in `order`; resolves once it listens. */
export async function startInstance(name: string, order: number[]): Promise<Instance> {
  const port = await freePort();
  const env = instanceEnv(order, port);
  const { child, output } = startServer(env);
  const instance = { name, port, env, child, output };
  await eventually(
    () => output().includes('"msg":"Ready on'),
    90_000,
    `instance ${name} ready (output: ${output().slice(-2000)})`,
  );
  return instance;
}

export async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  instance.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
  clearTimeout(timer);
  if (instance.child.exitCode === null) instance.child.kill('SIGKILL');
}

export interface Answer {
  status: number; // 0: no HTTP answer (connection refused or reset)
  ms: number;
  startedAt: number;
  body: Json;
  headers: Headers | null;
}

/** One request; never throws. A request still unanswered after 35 s counts as status -1. */
export async function call(
  instance: Instance,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Answer> {
  const startedAt = Date.now();
  try {
    const response = await fetch(`http://127.0.0.1:${instance.port}${path}`, {
      method,
      headers: {
        'User-Agent': UA,
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(35_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return {
      status: response.status,
      ms: Date.now() - startedAt,
      startedAt,
      body: parsed,
      headers: response.headers,
    };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return {
      status: timedOut ? -1 : 0,
      ms: Date.now() - startedAt,
      startedAt,
      body: String(error),
      headers: null,
    };
  }
}

export async function cli(args: string[], order = [1, 2, 3], input?: string): Promise<string> {
  const result = await runCli(
    args,
    { DATABASE_URL: databaseUrl(order), WEBHOOK_ALLOW_PRIVATE: 'true' },
    input,
  );
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** A user with a token for every scope. */
export async function userWithToken(name: string): Promise<string> {
  await cli(['users', 'create', '--name', name]);
  return cli([
    'tokens',
    'issue',
    '--user',
    name,
    '--scopes',
    'ratings.anime ratings.manga user.profile',
    '--ttl',
    '86400',
  ]);
}

/** Score `s` (11–99) as the PUT body's rating and fraction. */
export function scoreBody(score: number): Record<string, unknown> {
  return { status: 'ongoing', public_rating: Math.floor(score / 10), public_fraction: score % 10 };
}

export interface Write {
  instance: string;
  titleId: number;
  score: number;
  answer: Answer;
}

/**
 * Writers that PUT (title, score) pairs never written before (so each write changes the score,
 * and records one history event), through the instances, `perInstance` requests in flight each,
 * until `stop()`.
 */
export function startWriters(
  instances: Instance[],
  token: string,
  titles: number[],
  perInstance = 2,
): { stop: () => Promise<Write[]> } {
  const writes: Write[] = [];
  let running = true;
  let next = 0;
  const scores = Array.from({ length: 89 }, (_, i) => 11 + i);
  const pairs: { titleId: number; score: number }[] = [];
  for (const score of scores) for (const titleId of titles) pairs.push({ titleId, score });
  const loops = instances.flatMap((instance) =>
    Array.from({ length: perInstance }, async () => {
      while (running && next < pairs.length) {
        const pair = pairs[next++];
        const answer = await call(
          instance,
          'PUT',
          `/v1/my/anime/${pair.titleId}/ratings`,
          token,
          scoreBody(pair.score),
        );
        writes.push({ instance: instance.name, ...pair, answer });
        // Paced so that the (title, score) pairs last the test: 89 per title.
        await sleep(answer.status === 200 ? 150 : 500);
      }
    }),
  );
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return writes;
    },
  };
}

/** Every history event of the user's anime list (newest first), through `instance`. */
export async function historyOf(instance: Instance, token: string): Promise<Json[]> {
  const events: Json[] = [];
  let before = '';
  for (;;) {
    const answer = await call(instance, 'GET', `/v1/my/anime/history?limit=1000${before}`, token);
    if (answer.status !== 200)
      throw new Error(`history: ${answer.status} ${JSON.stringify(answer.body)}`);
    events.push(...answer.body);
    if (answer.body.length < 1000) return events;
    before = `&before=${answer.body[answer.body.length - 1].id}`;
  }
}
