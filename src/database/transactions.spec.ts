import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { DataSource, QueryFailedError, type EntityManager } from 'typeorm';
import { queueSqliteStatements, runTransaction, SQLITE_GROUP_LIMIT } from './transactions';

/**
 * Another process's writer (the CLI next to the server), on a thread of its own: better-sqlite3
 * waits for a lock synchronously, so a writer on this thread could never let go meanwhile.
 */
const OTHER_WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.exec('BEGIN IMMEDIATE');
db.exec("INSERT INTO counters (name) VALUES ('other')");
parentPort.postMessage('locked');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
db.exec('COMMIT');
db.close();
`;

describe('runTransaction on SQLite', () => {
  let folder: string;
  let dataSource: DataSource;

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'transactions-'));
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: join(folder, 'test.sqlite'),
      enableWAL: true,
      timeout: 5000,
    });
    await dataSource.initialize();
    queueSqliteStatements(dataSource);
    await dataSource.query('CREATE TABLE counters (name TEXT NOT NULL)');
  });

  afterEach(async () => {
    await dataSource.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  it('waits for a write of another process when it reads before it writes', async () => {
    const worker = new Worker(OTHER_WRITER, {
      eval: true,
      workerData: {
        driver: require.resolve('better-sqlite3'),
        file: join(folder, 'test.sqlite'),
        holdMs: 300,
      },
    });
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    await new Promise((resolve) => worker.once('message', resolve));

    // A deferred transaction would read here, then fail its insert with SQLITE_BUSY at once.
    const seen = await runTransaction(dataSource, async (em) => {
      const [{ n }] = await em.query<{ n: number }[]>('SELECT COUNT(*) AS n FROM counters');
      await em.query("INSERT INTO counters (name) VALUES ('this')");
      return n;
    });
    await exited;

    expect(seen).toBe(1);
    expect(await dataSource.query('SELECT name FROM counters ORDER BY rowid')).toEqual([
      { name: 'other' },
      { name: 'this' },
    ]);
  });

  /** The COMMITs the connection runs from now on (every statement the runners prepare is counted). */
  function countCommits(): { commits: number } {
    const counted = { commits: 0 };
    type Statement = { run: (...args: unknown[]) => unknown };
    const connection = (
      dataSource.driver as unknown as {
        databaseConnection: { prepare: (sql: string) => Statement };
      }
    ).databaseConnection;
    const prepare = connection.prepare.bind(connection);
    connection.prepare = (sql: string) => {
      const statement = prepare(sql);
      if (sql === 'COMMIT') {
        const run = statement.run.bind(statement);
        statement.run = (...args: unknown[]) => {
          counted.commits++;
          return run(...args);
        };
      }
      return statement;
    };
    return counted;
  }

  const grouped = { grouped: true };

  const insert = (name: string) => async (em: EntityManager) => {
    await em.query('INSERT INTO counters (name) VALUES (?)', [name]);
    await new Promise((resolve) => setImmediate(resolve));
    return name;
  };

  it('ends the transactions that arrive while one runs with one COMMIT, each answered after it', async () => {
    const counted = countCommits();
    const settled: string[] = [];
    const names = Array.from({ length: 5 }, (_, i) => `w${i}`);
    const results = await Promise.all(
      names.map((name) =>
        runTransaction(dataSource, insert(name), grouped).then((value) => {
          settled.push(value);
          return value;
        }),
      ),
    );
    expect(results).toEqual(names);
    expect(settled).toEqual(names);
    // All five were queued before the first statement ran: one group took them all.
    expect(counted.commits).toBe(1);
    expect(await dataSource.query('SELECT name FROM counters ORDER BY rowid')).toEqual(
      names.map((name) => ({ name })),
    );
  });

  it('groups the writes that callbacks of one event-loop turn start, though each runs without waiting', async () => {
    const counted = countCommits();
    const names = ['t0', 't1', 't2'];
    // Three immediates queued together run in one check phase, with the microtasks between them:
    // what requests read in one turn do. A work that only awaits statements would commit alone if
    // its group began at once.
    const results = await Promise.all(
      names.map(
        (name) =>
          new Promise<string>((resolve, reject) =>
            setImmediate(() => {
              runTransaction(
                dataSource,
                async (em) => {
                  await em.query('INSERT INTO counters (name) VALUES (?)', [name]);
                  return name;
                },
                grouped,
              ).then(resolve, reject);
            }),
          ),
      ),
    );
    expect(results).toEqual(names);
    expect(counted.commits).toBe(1);
  });

  it('rolls back a transaction that throws to its savepoint alone; the others commit', async () => {
    const failing = runTransaction(
      dataSource,
      async (em) => {
        await em.query("INSERT INTO counters (name) VALUES ('lost')");
        throw new Error('refused');
      },
      grouped,
    );
    const [first, , last] = await Promise.allSettled([
      runTransaction(dataSource, insert('first'), grouped),
      failing,
      runTransaction(dataSource, insert('last'), grouped),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: 'first' });
    await expect(failing).rejects.toThrow('refused');
    expect(last).toEqual({ status: 'fulfilled', value: 'last' });
    expect(await dataSource.query('SELECT name FROM counters ORDER BY rowid')).toEqual([
      { name: 'first' },
      { name: 'last' },
    ]);
  });

  it(`commits at most ${SQLITE_GROUP_LIMIT} per group; the rest form the next group`, async () => {
    const counted = countCommits();
    const names = Array.from({ length: SQLITE_GROUP_LIMIT + 3 }, (_, i) => `w${i}`);
    await Promise.all(names.map((name) => runTransaction(dataSource, insert(name), grouped)));
    expect(counted.commits).toBe(2);
    const [{ n }] = await dataSource.query<{ n: number }[]>('SELECT COUNT(*) AS n FROM counters');
    expect(n).toBe(names.length);
  });

  it('a transaction alone is committed before its caller hears of it', async () => {
    await runTransaction(dataSource, insert('alone'));
    const other = new BetterSqlite3(join(folder, 'test.sqlite'), { readonly: true });
    expect(other.prepare('SELECT name FROM counters').all()).toEqual([{ name: 'alone' }]);
    other.close();
  });

  it('a transaction that SQLite ends itself fails its whole group; the next group runs', async () => {
    await dataSource.query(
      "CREATE TRIGGER boom BEFORE INSERT ON counters WHEN NEW.name = 'boom' BEGIN SELECT RAISE(ROLLBACK, 'boom'); END",
    );
    const results = await Promise.allSettled([
      runTransaction(dataSource, insert('before'), grouped),
      runTransaction(dataSource, insert('boom'), grouped),
      runTransaction(dataSource, insert('after'), grouped),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(await dataSource.query('SELECT name FROM counters ORDER BY rowid')).toEqual([
      { name: 'after' },
    ]);
  });

  it('a COMMIT that fails rejects the group and leaves no transaction open', async () => {
    await dataSource.query('CREATE TABLE parents (id INTEGER PRIMARY KEY)');
    await dataSource.query(
      'CREATE TABLE children (parent_id INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)',
    );
    await dataSource.query('PRAGMA foreign_keys = ON');
    const orphan = runTransaction(
      dataSource,
      async (em) => {
        await em.query('INSERT INTO children (parent_id) VALUES (42)');
      },
      grouped,
    );
    const [first, second] = await Promise.allSettled([
      runTransaction(dataSource, insert('with the orphan'), grouped),
      orphan,
    ]);
    expect(first.status).toBe('rejected');
    expect(second.status).toBe('rejected');

    // Outside a transaction, then in one: both committed, as another connection sees.
    await dataSource.query("INSERT INTO counters (name) VALUES ('outside')");
    await runTransaction(dataSource, insert('inside'));
    const other = new BetterSqlite3(join(folder, 'test.sqlite'), { readonly: true });
    expect(other.prepare('SELECT name FROM counters ORDER BY rowid').all()).toEqual([
      { name: 'outside' },
      { name: 'inside' },
    ]);
    other.close();
  });

  it('runs a transaction that does not ask to be grouped alone, with a COMMIT of its own', async () => {
    const counted = countCommits();
    const names = ['a', 'b', 'c'];
    await Promise.all(names.map((name) => runTransaction(dataSource, insert(name))));
    expect(counted.commits).toBe(3);
  });

  it("answers a transaction's statements as TypeORM's query runner does", async () => {
    const answers = await runTransaction(
      dataSource,
      async (em) => ({
        inserted: (await em.query("INSERT INTO counters (name) VALUES ('a')")) as unknown,
        rows: (await em.query('SELECT name FROM counters')) as unknown,
        updated: await em
          .createQueryBuilder()
          .update('counters')
          .set({ name: 'b' })
          .where('name = :name', { name: 'a' })
          .execute(),
        returned: (await em.query(
          "INSERT INTO counters (name) VALUES ('c') RETURNING name",
        )) as unknown,
        failed: (await em
          .query('INSERT INTO counters (name) VALUES (NULL)')
          .catch((error: unknown) => error)) as unknown,
        unprepared: (await em.query('SELEKT 1').catch((error: unknown) => error)) as unknown,
      }),
      grouped,
    );
    expect(answers.inserted).toBe(1);
    expect(answers.rows).toEqual([{ name: 'a' }]);
    expect(answers.updated.affected).toBe(1);
    expect(answers.failed).toBeInstanceOf(QueryFailedError);
    expect((answers.failed as QueryFailedError).message).toMatch(/NOT NULL constraint failed/);
    expect(answers.returned).toEqual([{ name: 'c' }]);
    expect(answers.unprepared).toBeInstanceOf(Error);
    expect(answers.unprepared).not.toBeInstanceOf(QueryFailedError);
    expect(await dataSource.query('SELECT name FROM counters ORDER BY rowid')).toEqual([
      { name: 'b' },
      { name: 'c' },
    ]);
  });

  it("keeps at most the driver's statementCacheSize statements prepared, the oldest dropped first", async () => {
    const small = new DataSource({
      type: 'better-sqlite3',
      database: join(folder, 'test.sqlite'),
      statementCacheSize: 3,
    });
    await small.initialize();
    try {
      const connection = (small.driver as unknown as { databaseConnection: BetterSqlite3.Database })
        .databaseConnection;
      const prepare = jest.spyOn(connection, 'prepare');
      const run = (sql: string) => runTransaction(small, (em) => em.query(sql));
      await run('SELECT 1');
      const begun = prepare.mock.calls.length;
      await run('SELECT 1');
      expect(prepare.mock.calls.length).toBe(begun); // BEGIN, SELECT 1, COMMIT: all kept
      await run('SELECT 2'); // pushes BEGIN out
      await run('SELECT 1'); // BEGIN pushes SELECT 1 out, which pushes COMMIT out, and so on
      expect(prepare.mock.calls.slice(begun).map(([sql]) => sql)).toEqual([
        'SELECT 2',
        'BEGIN IMMEDIATE TRANSACTION',
        'SELECT 1',
        'COMMIT',
      ]);
    } finally {
      await small.destroy();
    }
  });

  it('rolls back all of a transaction alone that throws; the next one commits', async () => {
    const failing = runTransaction(dataSource, async (em) => {
      await em.query("INSERT INTO counters (name) VALUES ('lost')");
      throw new Error('refused');
    });
    await expect(failing).rejects.toThrow('refused');
    await runTransaction(dataSource, insert('kept'));
    expect(await dataSource.query('SELECT name FROM counters')).toEqual([{ name: 'kept' }]);
  });
});
