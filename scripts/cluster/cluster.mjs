#!/usr/bin/env node
// A MariaDB Galera cluster of three nodes and a Redis primary + replica under three Sentinels, on
// local ports of one machine, for tests and demos (contract §23). Debian packages only: galera-4,
// mariadb-server, redis-server, rsync.
//
//   node scripts/cluster/cluster.mjs start          # or: npm run cluster:start
//   node scripts/cluster/cluster.mjs stop           # or: npm run cluster:stop
//   node scripts/cluster/cluster.mjs status
//   node scripts/cluster/cluster.mjs start-node 2   # (re)start one Galera node, joining the others
//   node scripts/cluster/cluster.mjs start-redis primary|replica
//
// CLUSTER_DIR (default /tmp/ratings-cluster) holds every data folder, log and pid file.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, openSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import mysql from 'mysql2/promise';

export const DIR = process.env.CLUSTER_DIR || '/tmp/ratings-cluster';
export const NODES = [1, 2, 3].map((n) => ({
  n,
  sqlPort: 4305 + n,
  galeraPort: 4570 + n,
  istPort: 4560 + n,
  sstPort: 4580 + n,
}));
export const REDIS = { primary: 6380, replica: 6381 };
export const SENTINELS = [26380, 26381, 26382];
export const MASTER_NAME = 'ratings';
export const USER = 'ratings';
export const PASSWORD = 'ratings';
export const DATABASE = 'ratings';
export const DATABASE_URL = `mysql://${USER}:${PASSWORD}@${NODES.map((node) => `127.0.0.1:${node.sqlPort}`).join(',')}/${DATABASE}`;
export const REDIS_URL = `redis+sentinel://${SENTINELS.map((port) => `127.0.0.1:${port}`).join(',')}/${MASTER_NAME}`;

const PROVIDER = ['/usr/lib/galera/libgalera_smm.so', '/usr/lib/libgalera_smm.so'].find(existsSync);
const GCOMM = `gcomm://${NODES.map((node) => `127.0.0.1:${node.galeraPort}`).join(',')}`;

const nodeDir = (/** @type {number} */ n) => join(DIR, `node${n}`);
const pidFile = (/** @type {string} */ name) => join(DIR, `${name}.pid`);
const log = (/** @type {string} */ line) => process.stderr.write(`cluster: ${line}\n`);

function mysqlIds() {
  try {
    return {
      uid: Number(execFileSync('id', ['-u', 'mysql']).toString()),
      gid: Number(execFileSync('id', ['-g', 'mysql']).toString()),
    };
  } catch {
    return null;
  }
}

/** @param {string} path */
function ownByMysql(path) {
  const ids = mysqlIds();
  if (ids && process.getuid?.() === 0) execFileSync('chown', ['-R', `${ids.uid}:${ids.gid}`, path]);
}

/** @param {(typeof NODES)[number]} node */
function config(node) {
  const dir = nodeDir(node.n);
  return `[mariadbd]
datadir=${join(dir, 'data')}
socket=${join(dir, 'mysqld.sock')}
pid-file=${join(dir, 'mariadbd.pid')}
log-error=${join(dir, 'error.log')}
port=${node.sqlPort}
bind-address=127.0.0.1
skip-name-resolve
user=mysql
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=32M
innodb_log_file_size=16M
performance_schema=OFF
max_connections=200
wsrep_on=ON
wsrep_provider=${PROVIDER}
wsrep_cluster_name=ratings-cluster
wsrep_cluster_address=${GCOMM}
wsrep_node_name=node${node.n}
wsrep_node_address=127.0.0.1:${node.galeraPort}
wsrep_node_incoming_address=127.0.0.1:${node.sqlPort}
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:${node.galeraPort};ist.recv_addr=127.0.0.1:${node.istPort};gcache.size=32M"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:${node.sstPort}
`;
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** @param {string} name */
export function pidOf(name) {
  try {
    const pid = Number(readFileSync(pidFile(name), 'utf8'));
    return pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * @param {string} name
 * @param {string} command
 * @param {string[]} args
 */
function launch(name, command, args) {
  const out = openSync(join(DIR, `${name}.log`), 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out] });
  child.unref();
  writeFileSync(pidFile(name), String(child.pid));
  return child.pid;
}

/** @param {number} port @returns {Promise<boolean>} */
function portOpen(port) {
  return new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** wsrep_ready ON and Synced (4), or null when the node does not answer. */
/**
 * @param {number} n
 * @param {{ user?: string, password?: string, socketPath?: string }} [options]
 */
export async function nodeState(n, options = {}) {
  const node = NODES[n - 1];
  /** @type {import('mysql2/promise').Connection | undefined} */
  let connection;
  try {
    connection = await mysql.createConnection({
      host: '127.0.0.1',
      port: node.sqlPort,
      user: options.user ?? USER,
      password: options.password ?? PASSWORD,
      socketPath: options.socketPath,
      connectTimeout: 2000,
    });
    const [rows] = /** @type {[{ Variable_name: string, Value: string }[], unknown]} */ (
      await connection.query({
        sql: "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state', 'wsrep_cluster_size')",
        timeout: 2000,
      })
    );
    const status = Object.fromEntries(rows.map((row) => [row.Variable_name, row.Value]));
    return {
      ready: status.wsrep_ready === 'ON' && status.wsrep_local_state === '4',
      size: Number(status.wsrep_cluster_size),
    };
  } catch {
    return null;
  } finally {
    connection?.destroy();
  }
}

/**
 * @param {string} what
 * @param {() => Promise<boolean>} check
 * @param {number} seconds
 */
async function waitFor(what, check, seconds) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(250);
  }
  throw new Error(`${what}: not within ${seconds} s (logs in ${DIR})`);
}

/** Starts node n (bootstrapping a new cluster with `bootstrap`) and waits until it is synced. */
/**
 * @param {number} n
 * @param {{ bootstrap?: boolean, seconds?: number }} [options]
 */
export async function startNode(n, { bootstrap = false, seconds = 90 } = {}) {
  const node = NODES[n - 1];
  if (pidOf(`node${n}`)) throw new Error(`node${n} already runs`);
  const dir = nodeDir(n);
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'my.cnf'), config(node));
  ownByMysql(dir);
  const args = [`--defaults-file=${join(dir, 'my.cnf')}`];
  if (bootstrap) args.push('--wsrep-new-cluster');
  launch(`node${n}`, 'mariadbd', args);
  const socketPath = join(dir, 'mysqld.sock');
  await waitFor(
    `node${n} synced`,
    async () => {
      if (!pidOf(`node${n}`)) throw new Error(`node${n} exited: see ${join(dir, 'error.log')}`);
      const state = bootstrap
        ? await nodeState(n, { user: 'root', password: '', socketPath })
        : await nodeState(n);
      return state?.ready === true;
    },
    seconds,
  );
}

async function bootstrapFirst() {
  const dir = nodeDir(1);
  mkdirSync(join(dir, 'data'), { recursive: true });
  ownByMysql(dir);
  execFileSync(
    'mariadb-install-db',
    [
      '--no-defaults',
      '--user=mysql',
      `--datadir=${join(dir, 'data')}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ],
    { stdio: 'ignore' },
  );
  await startNode(1, { bootstrap: true });
  const root = await mysql.createConnection({ socketPath: join(dir, 'mysqld.sock'), user: 'root' });
  await root.query(`CREATE USER IF NOT EXISTS '${USER}'@'%' IDENTIFIED BY '${PASSWORD}'`);
  await root.query(`GRANT ALL PRIVILEGES ON *.* TO '${USER}'@'%' WITH GRANT OPTION`);
  await root.query(`CREATE DATABASE IF NOT EXISTS ${DATABASE} CHARACTER SET utf8mb4`);
  await root.end();
}

/** @param {'primary' | 'replica'} role */
export function redisArgs(role) {
  const port = REDIS[role];
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    DIR,
    '--save',
    '',
    '--appendonly',
    'no',
    '--dbfilename',
    `redis-${role}.rdb`,
    '--daemonize',
    'no',
  ];
  if (role === 'replica') args.push('--replicaof', '127.0.0.1', String(REDIS.primary));
  return args;
}

/** @param {'primary' | 'replica'} role */
export async function startRedis(role) {
  if (pidOf(`redis-${role}`)) throw new Error(`redis-${role} already runs`);
  launch(`redis-${role}`, 'redis-server', redisArgs(role));
  await waitFor(`redis-${role}`, () => portOpen(REDIS[role]), 10);
}

/** @param {number} i */
async function startSentinel(i) {
  const port = SENTINELS[i];
  const file = join(DIR, `sentinel-${port}.conf`);
  writeFileSync(
    file,
    `port ${port}
bind 127.0.0.1
daemonize no
dir ${DIR}
sentinel monitor ${MASTER_NAME} 127.0.0.1 ${REDIS.primary} 2
sentinel down-after-milliseconds ${MASTER_NAME} 2000
sentinel failover-timeout ${MASTER_NAME} 10000
sentinel parallel-syncs ${MASTER_NAME} 1
`,
  );
  launch(`sentinel-${port}`, 'redis-server', [file, '--sentinel']);
  await waitFor(`sentinel ${port}`, () => portOpen(port), 10);
}

export async function start() {
  if (!PROVIDER) throw new Error('The Galera provider is missing: apt-get install galera-4');
  if (existsSync(DIR) && NODES.some((node) => pidOf(`node${node.n}`))) {
    throw new Error(`A cluster already runs in ${DIR}: npm run cluster:stop first`);
  }
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const started = Date.now();
  await bootstrapFirst();
  log('node1 bootstrapped');
  for (const n of [2, 3]) {
    await startNode(n);
    log(`node${n} synced`);
  }
  await startRedis('primary');
  await startRedis('replica');
  for (const i of [0, 1, 2]) await startSentinel(i);
  log(`up in ${Math.round((Date.now() - started) / 1000)} s`);
  process.stdout.write(`DATABASE_URL=${DATABASE_URL}\nREDIS_URL=${REDIS_URL}\n`);
}

/**
 * @param {string} name
 * @param {NodeJS.Signals} [signal]
 */
export async function stopProcess(name, signal = 'SIGTERM') {
  const pid = pidOf(name);
  if (!pid) return;
  process.kill(pid, 'SIGCONT');
  process.kill(pid, signal);
  const deadline = Date.now() + 30_000;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

export async function stop() {
  const names = [
    ...SENTINELS.map((port) => `sentinel-${port}`),
    'redis-replica',
    'redis-primary',
    ...NODES.map((node) => `node${node.n}`).reverse(),
  ];
  await Promise.all(names.map((name) => stopProcess(name)));
  rmSync(DIR, { recursive: true, force: true });
  log('stopped');
}

async function status() {
  for (const node of NODES) {
    const state = pidOf(`node${node.n}`) ? await nodeState(node.n) : null;
    process.stdout.write(
      `node${node.n} 127.0.0.1:${node.sqlPort} ${state ? (state.ready ? `synced (cluster of ${state.size})` : 'not ready') : 'down'}\n`,
    );
  }
  for (const role of ['primary', 'replica']) {
    process.stdout.write(
      `redis-${role} 127.0.0.1:${REDIS[role]} ${pidOf(`redis-${role}`) ? 'up' : 'down'}\n`,
    );
  }
  for (const port of SENTINELS) {
    process.stdout.write(
      `sentinel 127.0.0.1:${port} ${pidOf(`sentinel-${port}`) ? 'up' : 'down'}\n`,
    );
  }
  process.stdout.write(`DATABASE_URL=${DATABASE_URL}\nREDIS_URL=${REDIS_URL}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [command, arg] = process.argv.slice(2);
  /** @type {Record<string, () => Promise<void>>} */
  const commands = {
    start,
    stop,
    status,
    'start-node': () => startNode(Number(arg)),
    'start-redis': () => startRedis(arg === 'replica' ? 'replica' : 'primary'),
  };
  const run = commands[command];
  if (!run) {
    process.stderr.write(
      'usage: cluster.mjs start|stop|status|start-node N|start-redis primary|replica\n',
    );
    process.exit(2);
  }
  run().then(
    () => process.exit(0),
    (/** @type {Error} */ error) => {
      process.stderr.write(`cluster: ${error.message}\n`);
      process.exit(1);
    },
  );
}
