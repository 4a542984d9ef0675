// The database a bench run uses: a SQLite file in the run's temp dir, or a fresh MariaDB database
// that is dropped at the end.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { URL } from 'node:url';
import Database from 'better-sqlite3';
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

/**
 * Inserts `rows` (values in the order of `columns`) into `table`, in one transaction on a
 * connection of its own: for seeding what the API cannot write, such as history events dated in
 * the past.
 * @param {BenchDatabase} database
 * @param {string} table
 * @param {string[]} columns
 * @param {(string | number | null)[][]} rows
 */
export async function insertRows(database, table, columns, rows) {
  if (database.kind === 'sqlite') {
    const connection = new Database(database.url.slice('sqlite:'.length), { timeout: 30_000 });
    try {
      const statement = connection.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      connection.transaction(() => {
        for (const row of rows) statement.run(...row);
      })();
    } finally {
      connection.close();
    }
    return;
  }
  const connection = await connectTo(database.url);
  try {
    await connection.beginTransaction();
    for (let i = 0; i < rows.length; i += 1000) {
      await connection.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ?`, [
        rows.slice(i, i + 1000),
      ]);
    }
    await connection.commit();
  } finally {
    await connection.end();
  }
}

/**
 * The first row of `sql` on a connection of its own.
 * @param {BenchDatabase} database
 * @param {string} sql
 * @param {unknown[]} parameters
 * @returns {Promise<Record<string, unknown> | undefined>}
 */
export async function selectRow(database, sql, parameters) {
  if (database.kind === 'sqlite') {
    const connection = new Database(database.url.slice('sqlite:'.length), { readonly: true });
    try {
      return /** @type {Record<string, unknown> | undefined} */ (
        connection.prepare(sql).get(...parameters)
      );
    } finally {
      connection.close();
    }
  }
  const connection = await connectTo(database.url);
  try {
    const [rows] = await connection.query(sql, parameters);
    return /** @type {Record<string, unknown>[]} */ (rows)[0];
  } finally {
    await connection.end();
  }
}

/**
 * A connection of its own to the MariaDB/MySQL database of `url`.
 * @param {string} url
 */
function connectTo(url) {
  const parsed = new URL(url);
  return mysql.createConnection({
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username || 'root'),
    password: decodeURIComponent(parsed.password),
    database: parsed.pathname.slice(1),
  });
}
