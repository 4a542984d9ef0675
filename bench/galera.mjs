// `npm run bench -- --db galera`: GET one, PUT update and GET all (1k entries) through two
// instances, first both on one MariaDB (--mysql-url), then on two nodes of the local Galera
// cluster (scripts/cluster, started for the run when it is not up), and the ratio of the two.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';
import autocannon from 'autocannon';
import mysql from 'mysql2/promise';
import { freePort, runNode, startChild, stopChild, waitForHttp } from './lib/children.mjs';
import { apiHeaders, HttpClient } from './lib/http.mjs';
import { createDatabase } from './lib/database.mjs';
import { SCOPES } from './lib/seed.mjs';

const CLUSTER = join(import.meta.dirname, '..', 'scripts', 'cluster', 'cluster.mjs');
const GALERA_NODES = ['127.0.0.1:4306', '127.0.0.1:4307', '127.0.0.1:4308'];
const GALERA_ADMIN = { host: '127.0.0.1', port: 4306, user: 'ratings', password: 'ratings' };
const TITLES = 1000;

/**
 * @param {{ root: string, tmpDir: string, mysqlServer: string, duration: number, connections: number, say: (line: string) => void, cleanups: (() => Promise<void>)[] }} options
 */
export async function benchGalera({
  root,
  tmpDir,
  mysqlServer,
  duration,
  connections,
  say,
  cleanups,
}) {
  const catalogFile = join(tmpDir, 'catalog.json');
  await writeFile(
    catalogFile,
    JSON.stringify(
      Array.from({ length: TITLES }, (_, i) => ({
        media_type: 'anime',
        id: i + 1,
        title: `Title ${i + 1}`,
        episodes: 24,
        episode_minutes: 24,
      })),
    ),
  );

  const single = await createDatabase('mysql', { tmpDir, mysqlServer });
  cleanups.push(() => single.drop());
  const singleRows = await measureTopology('single MariaDB', [single.url, single.url], {
    root,
    tmpDir,
    catalogFile,
    duration,
    connections,
    say,
    cleanups,
  });

  if (!(await galeraUp())) {
    say('starting the local Galera cluster (npm run cluster:start)…');
    execFileSync(process.execPath, [CLUSTER, 'start'], { stdio: 'inherit' });
    cleanups.push(async () => {
      execFileSync(process.execPath, [CLUSTER, 'stop'], { stdio: 'inherit' });
    });
  }
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = await mysql.createConnection(GALERA_ADMIN);
  await admin.query(`CREATE DATABASE \`${name}\``);
  await admin.end();
  cleanups.push(async () => {
    const dropper = await mysql.createConnection(GALERA_ADMIN);
    await dropper.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await dropper.end();
  });
  const galeraUrl = (/** @type {string[]} */ order) =>
    `mysql://ratings:ratings@${order.join(',')}/${name}`;
  const galeraRows = await measureTopology(
    'Galera, two nodes',
    [galeraUrl(GALERA_NODES), galeraUrl([GALERA_NODES[1], GALERA_NODES[2], GALERA_NODES[0]])],
    { root, tmpDir, catalogFile, duration, connections, say, cleanups },
  );

  say('');
  say(
    '| scenario (two instances) | single MariaDB req/s | Galera req/s | Galera ÷ single | non-2xx (single / Galera) |',
  );
  say('| --- | ---: | ---: | ---: | ---: |');
  for (const [i, row] of singleRows.entries()) {
    const other = galeraRows[i];
    say(
      `| ${row.name} | ${row.rps.toFixed(0)} | ${other.rps.toFixed(0)} | ${(other.rps / row.rps).toFixed(2)}x | ${row.bad} / ${other.bad} |`,
    );
  }
}

async function galeraUp() {
  try {
    const connection = await mysql.createConnection({ ...GALERA_ADMIN, connectTimeout: 2000 });
    await connection.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * Seeds a list of 1k entries through the CLI and PUT, starts two instances on `urls`, and
 * measures each scenario with both under load at once (half the connections each).
 * @param {string} label
 * @param {string[]} urls
 * @param {{ root: string, tmpDir: string, catalogFile: string, duration: number, connections: number, say: (line: string) => void, cleanups: (() => Promise<void>)[] }} options
 */
async function measureTopology(
  label,
  urls,
  { root, tmpDir, catalogFile, duration, connections, say, cleanups },
) {
  const env = {
    ...process.env,
    DATABASE_URL: urls[0],
    REDIS_URL: '',
    RATE_LIMIT_USER_LIMIT: '1000000000',
    RATE_LIMIT_IP_LIMIT: '1000000000',
    UA_DENY_THRESHOLD: '0',
    LOG_LEVEL: 'warn',
  };
  const cli = async (/** @type {string[]} */ ...args) => {
    const result = await runNode(['dist/cli.js', ...args], { cwd: root, env, timeoutMs: 300_000 });
    return String(result).trim();
  };
  await cli('catalog', 'import', catalogFile);
  await cli('users', 'create', '--name', 'bench_1k');
  const token = (
    await cli('tokens', 'issue', '--user', 'bench_1k', '--scopes', SCOPES, '--ttl', '86400')
  ).trim();

  const instances = [];
  for (const [i, url] of urls.entries()) {
    const port = await freePort();
    const child = startChild(`${label}-${i}`, ['dist/main.js'], {
      env: { ...env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1' },
      cwd: root,
      logFile: join(tmpDir, `galera-bench-${i}.log`),
    });
    cleanups.push(() => stopChild(child.child));
    await waitForHttp(`http://127.0.0.1:${port}/health`, child);
    instances.push({ child, baseUrl: `http://127.0.0.1:${port}` });
  }

  const client = new HttpClient(instances[0].baseUrl, 20);
  const body = JSON.stringify({ status: 'ongoing', episodes_watched: 3 });
  await Promise.all(
    Array.from({ length: TITLES }, (_, i) =>
      client.request('PUT', `/v1/my/anime/${i + 1}/ratings`, {
        headers: apiHeaders(token, true),
        body,
      }),
    ),
  );
  client.close();

  const scenarios = [
    { name: 'GET one', method: 'GET', path: '/v1/my/anime/500/ratings' },
    {
      name: 'PUT update',
      method: 'PUT',
      path: '/v1/my/anime/1/ratings',
      body: JSON.stringify({ status: 'ongoing', episodes_watched: 5 }),
    },
    { name: 'GET all (1k)', method: 'GET', path: '/v1/my/anime/ratings' },
  ];
  const rows = [];
  for (const scenario of scenarios) {
    const results = await Promise.all(
      instances.map(({ baseUrl }) =>
        autocannon({
          url: `${baseUrl}${scenario.path}`,
          method: /** @type {'GET' | 'PUT'} */ (scenario.method),
          headers: apiHeaders(token, scenario.body !== undefined),
          body: scenario.body,
          connections: Math.max(1, Math.floor(connections / instances.length)),
          duration,
        }),
      ),
    );
    const rps = results.reduce((sum, result) => sum + result.requests.average, 0);
    const bad = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0);
    rows.push({ name: scenario.name, rps, bad });
    say(`${label}: ${scenario.name} ${rps.toFixed(0)} req/s (${bad} non-2xx or errors)`);
  }
  for (const { child } of instances) await stopChild(child.child);
  return rows;
}
