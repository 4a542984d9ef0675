import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import { exitOf, freePort, runCli, startServer } from './utils/cli';
import { tempDir } from './utils/test-services';
import { serverIsLive } from './utils/wait';

/** A MariaDB server whatever database the rest of the suite runs on: the target of the copy. */
const MARIADB = process.env.TEST_DATABASE_URL || 'mysql://root@127.0.0.1:3306';
const UA = 'ListSync/2.1.0 (admin@listsync.example)';

describe('database copy --to: from SQLite to a new MariaDB database', () => {
  let sqliteFile: string;
  let sqliteUrl: string;
  let mariadbUrl: string;
  const servers: ChildProcess[] = [];

  const serverRoot = () => {
    const url = new URL(MARIADB);
    url.pathname = '/';
    return url.toString();
  };

  beforeAll(async () => {
    sqliteFile = join(tempDir('ratings-copy-'), 'ratings.sqlite');
    sqliteUrl = `sqlite:${sqliteFile}`;
    const name = `ratings_copy_${process.pid}_${randomBytes(3).toString('hex')}`;
    const root = await createConnection({ uri: serverRoot() });
    await root.query(`CREATE DATABASE \`${name}\``);
    await root.end();
    const url = new URL(MARIADB);
    url.pathname = `/${name}`;
    mariadbUrl = url.toString();
  });

  afterAll(async () => {
    for (const child of servers) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exitOf(child);
      }
    }
    const root = await createConnection({ uri: serverRoot() });
    await root.query(`DROP DATABASE IF EXISTS \`${new URL(mariadbUrl).pathname.slice(1)}\``);
    await root.end();
  });

  const cli = async (args: string[], databaseUrl = sqliteUrl, input?: string) => {
    const result = await runCli(
      args,
      { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true' },
      input,
    );
    if (result.code !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };

  const serve = async (databaseUrl: string) => {
    const port = await freePort();
    const server = startServer({
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    servers.push(server.child);
    await serverIsLive(port, 60_000, '/health/ready');
    const call = async (token: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: {
          'User-Agent': UA,
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return JSON.parse(text) as unknown;
    };
    const stop = async () => {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
    };
    return { call, stop };
  };

  it('names a target database that does not exist, and how to make it', async () => {
    const url = new URL(MARIADB);
    url.pathname = `/ratings_copy_missing_${randomBytes(3).toString('hex')}`;
    const result = await runCli(['database', 'copy', '--to', url.toString()], {
      DATABASE_URL: sqliteUrl,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `error: The target database does not exist (MySQL/MariaDB ${url.toString()}): create it first (CREATE DATABASE ${url.pathname.slice(1)})`,
    );
  });

  it('copies every table; a server on the copy answers the same token with the same list and profile', async () => {
    // Something in every kind of table: users (one with a password), tokens, titles, entries and
    // deletions, OAuth clients, a webhook and its outbox.
    await cli(['catalog', 'import', 'examples/catalog.json']);
    // More titles than one batch holds: the copy pages through a two-column key.
    const more = join(dirname(sqliteFile), 'more-titles.json');
    const titles = Array.from({ length: 2100 }, (_, i) => ({
      media_type: i % 2 === 0 ? 'anime' : 'manga',
      id: 1000 + i,
      title: `Title ${1000 + i}`,
    }));
    writeFileSync(more, JSON.stringify(titles));
    await cli(['catalog', 'import', more]);
    await cli(
      ['users', 'create', '--name', 'alice', '--password-stdin'],
      sqliteUrl,
      'a long password\n',
    );
    await cli(['users', 'create', '--name', 'bob']);
    const scopes = 'ratings.anime ratings.manga user.profile';
    const alice = (await cli(['tokens', 'issue', '--user', 'alice', '--scopes', scopes])).trim();
    const bob = (await cli(['tokens', 'issue', '--user', 'bob', '--scopes', scopes])).trim();
    await cli([
      'clients',
      'create',
      '--name',
      'ListSync',
      '--redirect-uri',
      'https://listsync.example/cb',
    ]);
    await cli(['webhooks', 'create', '--url', 'http://127.0.0.1:9/ratings-hook']);

    const onSqlite = await serve(sqliteUrl);
    const entry = { status: 'completed', public_rating: 9, public_fraction: 5 };
    for (const id of [1, 2, 3]) {
      await onSqlite.call(alice, 'PUT', `/v1/my/anime/${id}/ratings`, entry);
    }
    await onSqlite.call(alice, 'PUT', '/v1/my/manga/1/ratings', { status: 'ongoing' });
    await onSqlite.call(alice, 'DELETE', '/v1/my/anime/3/ratings');
    // The newest entry goes: its id must not be handed out again on the copy.
    await onSqlite.call(bob, 'PUT', '/v1/my/anime/4/ratings', entry);
    await onSqlite.call(bob, 'DELETE', '/v1/my/anime/4/ratings');
    const reads = ['/v1/my/anime/ratings', '/v1/my/manga/ratings', '/v1/my/profile'];
    const before = await Promise.all(reads.map((path) => onSqlite.call(alice, 'GET', path)));
    await onSqlite.stop();

    const sqlite = new Database(sqliteFile, { readonly: true });
    const tables = (
      sqlite
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'migrations'",
        )
        .all() as { name: string }[]
    ).map((row) => row.name);
    const rows = Object.fromEntries(
      tables.map((table) => [
        table,
        (sqlite.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n,
      ]),
    );
    const titlesInSqlite = sqlite
      .prepare('SELECT media_type, id, title FROM titles ORDER BY media_type, id')
      .all();
    const { seq: lastEntryId } = sqlite
      .prepare("SELECT seq FROM sqlite_sequence WHERE name = 'rating_entries'")
      .get() as { seq: number };
    sqlite.close();
    for (const table of [
      'users',
      'access_tokens',
      'titles',
      'rating_entries',
      'sync_deletions',
      'oauth_clients',
      'webhooks',
      'webhook_messages',
    ]) {
      expect({ table, rows: rows[table] }).toEqual({ table, rows: expect.any(Number) });
      expect(rows[table]).toBeGreaterThan(0);
    }

    const copied = JSON.parse(await cli(['database', 'copy', '--to', mariadbUrl])) as {
      from: string;
      to: string;
      tables: Record<string, number>;
    };
    expect(copied).toEqual({
      from: `SQLite ${sqliteFile}`,
      to: `MySQL/MariaDB ${mariadbUrl}`,
      tables: rows,
    });
    // Parents before children: users before the entries and tokens that refer to them.
    const order = Object.keys(copied.tables);
    expect(order.indexOf('users')).toBeLessThan(order.indexOf('rating_entries'));
    expect(order.indexOf('oauth_clients')).toBeLessThan(order.indexOf('oauth_grants'));

    const onMariaDb = await serve(mariadbUrl);
    const after = await Promise.all(reads.map((path) => onMariaDb.call(alice, 'GET', path)));
    expect(after).toEqual(before);
    await onMariaDb.call(bob, 'PUT', '/v1/my/anime/5/ratings', entry);
    await onMariaDb.stop();
    for (const args of [
      ['users', 'list'],
      ['clients', 'list'],
      ['webhooks', 'list'],
    ]) {
      expect(await cli(args, mariadbUrl)).toBe(await cli(args, sqliteUrl));
    }
    const target = await createConnection({ uri: mariadbUrl });
    try {
      expect(rows.titles).toBeGreaterThan(2000);
      const [titlesInMariaDb] = await target.query(
        'SELECT media_type, id, title FROM titles ORDER BY media_type, id',
      );
      expect(titlesInMariaDb).toEqual(titlesInSqlite);
      const [[newest]] = (await target.query('SELECT MAX(id) AS id FROM rating_entries')) as [
        { id: number }[],
        unknown,
      ];
      expect(newest.id).toBeGreaterThan(lastEntryId);
    } finally {
      await target.end();
    }

    // A target that holds data is refused, and left as it was.
    const again = await runCli(['database', 'copy', '--to', mariadbUrl], {
      DATABASE_URL: sqliteUrl,
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^error: The target already holds data \(rows in .*users: 2.*\): copy into a new, empty database\n$/,
    );
    expect(await cli(['users', 'list'], mariadbUrl)).toBe(await cli(['users', 'list'], sqliteUrl));

    // And back, into a new SQLite file (README: moving back).
    const back = `sqlite:${join(dirname(sqliteFile), 'back.sqlite')}`;
    const copiedBack = JSON.parse(await cli(['database', 'copy', '--to', back], mariadbUrl)) as {
      tables: Record<string, number>;
    };
    expect(copiedBack.tables).toEqual({
      ...rows,
      // Bob's entry written on MariaDB (with its history event and viewing), and what its server
      // delivered and recorded meanwhile.
      rating_entries: rows.rating_entries + 1,
      history_events: rows.history_events + 1,
      history_viewings: rows.history_viewings + 1,
      rating_revisions: expect.any(Number),
      webhook_messages: expect.any(Number),
      webhook_attempts: expect.any(Number),
    });
    const onCopyBack = await serve(back);
    expect(await onCopyBack.call(alice, 'GET', '/v1/my/profile')).toEqual(before[2]);
    await onCopyBack.stop();
  }, 240_000);
});
