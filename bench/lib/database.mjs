// The database a bench run uses: a SQLite file in the run's temp dir, or a fresh MariaDB database
// that is dropped at the end.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { URL } from 'node:url';
import mysql from 'mysql2/promise';

export const DEFAULT_MYSQL_SERVER = 'mysql://root@127.0.0.1:3306';

/**
 * @typedef {{ kind: 'sqlite' | 'mysql', url: string, label: string, drop: () => Promise<void> }} BenchDatabase
 */

/**
 * @param {'sqlite' | 'mysql'} kind
 * @param {{ tmpDir: string, mysqlServer: string }} options
 * @returns {Promise<BenchDatabase>}
 */
export async function createDatabase(kind, { tmpDir, mysqlServer }) {
  if (kind === 'sqlite') {
    const path = join(tmpDir, 'bench.sqlite');
    return { kind, url: `sqlite:${path}`, label: `SQLite file ${path}`, drop: async () => {} };
  }

  const name = `bench_${randomBytes(4).toString('hex')}`;
  const server = new URL(mysqlServer);
  const connection = await mysql.createConnection({
    host: server.hostname,
    port: Number(server.port || 3306),
    user: decodeURIComponent(server.username || 'root'),
    password: decodeURIComponent(server.password),
    connectTimeout: 10_000,
  });
  try {
    // The server's default character set; the first migration sets the one it needs.
    await connection.query(`CREATE DATABASE \`${name}\``);
  } finally {
    await connection.end();
  }
  const url = new URL(mysqlServer);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    kind,
    url: url.toString(),
    label: `MariaDB database ${name} on ${server.host}`,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      const admin = await mysql.createConnection({
        host: server.hostname,
        port: Number(server.port || 3306),
        user: decodeURIComponent(server.username || 'root'),
        password: decodeURIComponent(server.password),
        connectTimeout: 10_000,
      });
      try {
        await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await admin.end();
      }
    },
  };
}

/** The pid of the local MariaDB/MySQL server, to sample its CPU time too (null if not found). */
export async function findDatabaseServerPid() {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = (await readFile(`/proc/${entry}/comm`, 'utf8')).trim();
      if (comm === 'mariadbd' || comm === 'mysqld') return Number(entry);
    } catch {
      // process ended meanwhile
    }
  }
  return null;
}
