import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/**
 * `npm test` runs on SQLite by default and on MySQL/MariaDB when TEST_DATABASE_URL names a server
 * (e.g. mysql://root@127.0.0.1:3306). Either way each run gets a database of its own, made here
 * and dropped at the end: on a server, `ratings_e2e_<pid>_<random>`, whatever database the URL
 * names (its user needs CREATE and DROP).
 */
export async function createRunDatabase(): Promise<string> {
  const server = process.env.TEST_DATABASE_URL;
  const name = `ratings_e2e_${process.pid}_${randomBytes(3).toString('hex')}`;
  if (!server) return `sqlite:${join(process.env.E2E_TMP_DIR ?? tmpdir(), `${name}.sqlite`)}`;

  const url = new URL(server);
  const connection = await createConnection({
    uri: `${url.protocol}//${url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''}${url.host}/`,
  });
  // The server's default character set: the migrations must cope with whatever an operator made.
  await connection.query(`CREATE DATABASE \`${name}\``);
  await connection.end();
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropRunDatabase(databaseUrl: string): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    return;
  }
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/';
  const connection = await createConnection({ uri: url.toString() });
  await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await connection.end();
}
